/**
 * The word being typed is matched as a prefix through a sorted term list (issue 34: a binary search,
 * not a scan of every term of the vault). The notes found equal those a plain scan finds, after a
 * bulk load (one sort) and after edits that bring a few new words (each put in place).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SearchIndex } from '../../src/capabilities/vaults/search.js';

const words = ['kettle', 'kettles', 'kettledrum', 'ketch', 'key', 'keyboard', 'kelp', 'ka', 'kz', 'k2', 'ältere', 'älter'];

/** The notes a scan finds: those with a word starting with `prefix`. */
function scan(docs: Map<string, string>, prefix: string): string[] {
  return [...docs].filter(([, body]) => body.split(' ').some((w) => w.startsWith(prefix))).map(([rel]) => rel).sort();
}

test('prefix search equals a scan of every term, after a bulk load and after new words', () => {
  const index = new SearchIndex();
  const docs = new Map<string, string>();
  const put = (rel: string, body: string) => {
    docs.set(rel, body);
    index.put({ rel, name: rel, aliases: [], body });
  };
  for (let i = 0; i < 200; i++) put(`n${i}`, `${words[i % words.length]} filler${i % 7}`);
  const check = (when: string) => {
    for (const prefix of ['ket', 'kettle', 'key', 'ke', 'k2', 'ält', 'kz', 'kx', 'fil', 'filler3']) {
      const found = index.search(prefix, 1000).map((h) => h.rel).sort();
      assert.deepEqual(found, scan(docs, prefix), `${when}: ${prefix}`);
    }
  };
  check('after the load');
  put('late1', 'ketamine kx');
  put('late2', 'keystone');
  check('after new words');
  index.remove('late1');
  docs.delete('late1');
  check('after a removal');
  for (let i = 0; i < 100; i++) put(`bulk${i}`, `kettle${i} filler${i}`);
  check('after many new words');
});
