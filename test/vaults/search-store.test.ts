/**
 * The vault's search index keeps no note text and is stored whole (issue 42): postings in typed
 * arrays, written to `search.bin` beside the records (`index.json`, no bodies), both of one save.
 * A start reads it back instead of reading every note to tokenise it; what changed while the
 * engine was down is read again; a search index of another save is never trusted.
 */
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { VaultIndex } from '../../src/capabilities/vaults/index.js';
import { DEFAULT_SCHEMA } from '../../src/capabilities/vaults/schema.js';
import { ShownBodies } from '../../src/capabilities/vaults/shown.js';
import { SearchIndex } from '../../src/capabilities/vaults/search.js';
import { Fence } from '../../src/kernel/fence.js';
import { FencedReader } from '../../src/kernel/fenced-read.js';
import { Home } from '../../src/kernel/home.js';
import { tempDir } from '../support/engine.js';

const WORDS = ['kettle', 'kelp', 'harbour', 'lantern', 'ember', 'quartz', 'willow', 'ältere', 'zephyr', 'marrow'];

/** Every answer of the index to a set of queries: exact words, typed prefixes, two words, a name. */
function answers(index: SearchIndex): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const q of [...WORDS, 'ket', 'wil', 'kettle ember', 'note 7', 'n3']) out[q] = index.search(q, 1000).map((h) => `${h.rel}:${h.score.toFixed(6)}:${h.matched.join('+')}`);
  return out;
}

test('SearchIndex: serialize and restore answer every query alike, after removals and re-puts; another stamp or cut bytes are refused', () => {
  const index = new SearchIndex();
  for (let i = 0; i < 300; i++) {
    const body = Array.from({ length: 12 }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(' ');
    index.put({ rel: `notes/n${i}.md`, name: `note ${i}`, aliases: i % 5 ? [] : [`alias ${i}`], body });
  }
  for (let i = 0; i < 300; i += 3) index.remove(`notes/n${i}.md`);
  for (let i = 1; i < 300; i += 9) index.put({ rel: `notes/n${i}.md`, name: `note ${i}`, aliases: [], body: 'zephyr rewritten' });
  const bytes = index.serialize('stamp-1');
  const restored = SearchIndex.restore(bytes, 'stamp-1');
  assert.ok(restored);
  assert.equal(restored.size, index.size);
  assert.deepEqual(answers(restored), answers(index));
  // The restored index goes on changing like the first.
  for (const i of [2, 4, 301]) {
    index.put({ rel: `notes/n${i}.md`, name: `note ${i}`, aliases: [], body: 'marrow ember new' });
    restored.put({ rel: `notes/n${i}.md`, name: `note ${i}`, aliases: [], body: 'marrow ember new' });
  }
  index.remove('notes/n5.md');
  restored.remove('notes/n5.md');
  assert.deepEqual(answers(restored), answers(index));

  assert.equal(SearchIndex.restore(bytes, 'stamp-2'), undefined, 'a search index of another save');
  assert.equal(SearchIndex.restore(bytes.subarray(0, bytes.length - 8), 'stamp-1'), undefined, 'cut short');
  assert.equal(SearchIndex.restore(Buffer.from('not an index'), 'stamp-1'), undefined);
});

test('a vault index holds no note text, stores its search index, and a start reads only what changed while it was down', async () => {
  const base = await tempDir();
  const root = path.join(base, 'vault');
  const home = new Home(path.join(base, 'home'));
  await home.ensure();
  const cache = path.join(base, 'home', 'vaults', 'v', 'index.json');
  const note = async (rel: string, text: string) => {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  };
  for (let i = 0; i < 40; i++) await note(`area/n${i}.md`, `---\ntags: [a]\n---\n# N${i}\n\nthe ${WORDS[i % WORDS.length]} of note ${i}, secretbody${i}\n`);
  const open = async () => {
    const index = new VaultIndex(root, home, cache, DEFAULT_SCHEMA, new FencedReader(new Fence(root, () => [])));
    return { index, stats: await index.load() };
  };

  const first = await open();
  assert.equal(first.stats.parsed, 40);
  assert.equal('body' in first.index.record('area/n3.md')!, false, 'the record keeps no body');
  const hits = first.index.query('secretbody3 ', 5);
  assert.deepEqual(hits.map((h) => h.path), ['area/n3.md']);
  assert.match(hits[0].snippet, /the lantern of note 3, secretbody3/, 'the snippet is cut from the note, read again');
  assert.doesNotMatch(hits[0].snippet, /tags/, 'and from its body, after the frontmatter');
  await first.index.flush();
  const stored = await readFile(cache, 'utf8');
  assert.doesNotMatch(stored, /secretbody/, 'index.json holds no note text');
  assert.ok((await readFile(path.join(path.dirname(cache), 'search.bin'))).length > 0);

  // While the engine is down: one note edited, one removed, one added.
  await note('area/n1.md', '# N1\n\nnow about zephyr only, brandnewword\n');
  await rm(path.join(root, 'area/n2.md'));
  await note('area/extra.md', '# Extra\n\nbrandnewword here too\n');
  const second = await open();
  assert.deepEqual([second.stats.parsed, second.stats.reused], [2, 38], 'only the edited and the added note are read');
  assert.deepEqual((second.index.query('brandnewword', 5)).map((h) => h.path).sort(), ['area/extra.md', 'area/n1.md']);
  assert.deepEqual(second.index.query('secretbody2 ', 5), [], 'the removed note is gone from the search index');
  assert.deepEqual(second.index.query('secretbody1 ', 5), [], 'the edited note\'s old words are gone');
  assert.deepEqual((second.index.query('secretbody7 ', 5)).map((h) => h.path), ['area/n7.md'], 'a note read back from search.bin is found');
  await second.index.flush();

  // A search.bin of another save (a crash between the two writes) is not trusted: every note is read.
  const bin = path.join(path.dirname(cache), 'search.bin');
  await writeFile(bin, new SearchIndex().serialize('another save'));
  const third = await open();
  assert.equal(third.stats.parsed, 40);
  assert.deepEqual((third.index.query('secretbody7 ', 5)).map((h) => h.path), ['area/n7.md']);
});

test('SearchIndex: notes put again and again (their term lists moved and reclaimed) answer as an index built once from the last texts', () => {
  const churned = new SearchIndex();
  const last = new Map<string, string>();
  for (let round = 0; round < 6; round++) {
    for (let i = 0; i < 1500; i++) {
      if ((i + round) % 4 === 0) {
        churned.remove(`n${i}.md`);
        last.delete(`n${i}.md`);
        continue;
      }
      const body = Array.from({ length: 8 + ((i + round) % 5) }, (_, k) => `${WORDS[(i + k + round) % WORDS.length]}${(i * k + round) % 13}`).join(' ');
      churned.put({ rel: `n${i}.md`, name: `note ${i}`, aliases: [], body });
      last.set(`n${i}.md`, body);
    }
  }
  const once = new SearchIndex();
  for (const [rel, body] of [...last].sort()) once.put({ rel, name: `note ${rel.slice(1, -3)}`, aliases: [], body });
  const queries = ['kettle3', 'ember1 zephyr2', 'harb', 'quartz12', 'note 77'];
  const ask = (index: SearchIndex) => queries.map((q) => index.search(q, 5000).map((h) => `${h.rel}:${h.score.toFixed(6)}`).sort());
  assert.equal(churned.size, once.size);
  assert.deepEqual(ask(churned), ask(once));
  const restored = SearchIndex.restore(churned.serialize('s'), 's')!;
  assert.deepEqual(ask(restored), ask(once));
});

test('a search keeps the notes it showed for the next snippets, only at the version the index holds', async () => {
  const base = await tempDir();
  const root = path.join(base, 'vault');
  const home = new Home(path.join(base, 'home'));
  await home.ensure();
  await mkdir(root, { recursive: true });
  for (let i = 0; i < 5; i++) await writeFile(path.join(root, `n${i}.md`), `# N${i}\n\nthe ${WORDS[i]} of note ${i}, shared\n`);
  const reader = new FencedReader(new Fence(root, () => []));
  let reads = 0;
  const readSync = reader.readSync.bind(reader);
  reader.readSync = (...args) => (reads++, readSync(...args));
  const index = new VaultIndex(root, home, path.join(base, 'home', 'index.json'), DEFAULT_SCHEMA, reader);
  await index.load();
  reads = 0;
  assert.equal(index.query('shared', 10).length, 5);
  assert.equal(reads, 5, 'a first search reads each note it shows');
  assert.equal(index.query('shar', 10).length, 5);
  assert.equal(reads, 5, 'the next search, a word typed a letter at a time, shows them from what the last one read');

  // An edit the index has seen is read again; one it has not is shown as the index knows the note.
  await writeFile(path.join(root, 'n1.md'), '# N1\n\nrewritten, shared and longer than before\n');
  await index.refresh('n1.md');
  const n1 = index.query('shared', 10).find((h) => h.path === 'n1.md')!;
  assert.match(n1.snippet, /rewritten, shared and longer/);
  assert.equal(reads, 6, 'only the edited note is read again');
  await rm(path.join(root, 'n2.md'));
  await index.refresh('n2.md');
  assert.deepEqual(index.query('shared', 10).map((h) => h.path).sort(), ['n0.md', 'n1.md', 'n3.md', 'n4.md']);
  await index.flush();
});

test('ShownBodies: the oldest shown go first past the bound; another version is a miss', () => {
  const shown = new ShownBodies(10);
  const v = { mtimeMs: 1, size: 4 };
  shown.set('a', v, 'aaaa');
  shown.set('b', v, 'bbbb');
  assert.equal(shown.get('a', v), 'aaaa', 'a is now the most recent');
  shown.set('c', v, 'cccc');
  assert.equal(shown.get('b', v), undefined, 'b, the oldest shown, went past the bound');
  assert.equal(shown.get('a', v), 'aaaa');
  assert.equal(shown.get('c', { mtimeMs: 2, size: 4 }), undefined, 'another version of c');
  assert.equal(shown.get('c', v), undefined, 'and the old version is dropped');
  shown.set('big', v, 'x'.repeat(11));
  assert.equal(shown.get('big', v), undefined, 'a body larger than the bound is not kept');
  assert.equal(shown.get('a', v), 'aaaa', 'and pushes nothing out');
});
