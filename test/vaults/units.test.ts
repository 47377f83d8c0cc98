/** The pieces under the routes: the resolver's rules, the Log insertion, the frontmatter fast path, search ranking. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { insertLogLine } from '../../src/capabilities/vaults/agent-ops.js';
import { parseNote, simpleFrontmatter } from '../../src/capabilities/vaults/parse.js';
import { Resolver } from '../../src/capabilities/vaults/resolver.js';
import { SearchIndex } from '../../src/capabilities/vaults/search.js';
import { parseFrontmatter } from '../../src/kernel/home.js';

test('resolver: order of the rules, case, .md, ties, aliases on two notes, removal', () => {
  const r = new Resolver();
  r.add('Plan.md');
  r.add('a/Plan.md', ['roadmap']);
  r.add('a/b/Idea.md', ['Roadmap']);
  r.add('c/Idea.md');
  r.add('x/y/Idea.md');
  assert.deepEqual(r.resolve('plan.MD'), { status: 'resolved', path: 'Plan.md', via: 'path' });
  assert.deepEqual(r.resolve('a/plan'), { status: 'resolved', path: 'a/Plan.md', via: 'path' });
  assert.deepEqual(r.resolve('b/Idea'), { status: 'resolved', path: 'a/b/Idea.md', via: 'suffix' });
  assert.deepEqual(r.resolve('Idea'), { status: 'resolved', path: 'c/Idea.md', via: 'name' });
  assert.deepEqual(r.resolve('ROADMAP'), { status: 'ambiguous', candidates: ['a/Plan.md', 'a/b/Idea.md'] });
  assert.deepEqual(r.resolve('nothing'), { status: 'unresolved' });
  assert.deepEqual(r.resolve('', { rel: 'c/Idea.md', relativeFirst: false }), { status: 'resolved', path: 'c/Idea.md', via: 'self' });
  r.remove('c/Idea.md');
  assert.deepEqual(r.resolve('Idea'), { status: 'ambiguous', candidates: ['a/b/Idea.md', 'x/y/Idea.md'] });
  r.remove('a/b/Idea.md');
  assert.deepEqual(r.resolve('roadmap'), { status: 'resolved', path: 'a/Plan.md', via: 'alias' });
  assert.deepEqual(r.named('idea'), ['x/y/Idea.md']);
  r.add('Kettle-Facts.md', ['Boiling  point!']);
  assert.deepEqual(r.named('kettle facts'), ['Kettle-Facts.md']);
  assert.deepEqual(r.named('boiling point'), ['Kettle-Facts.md']);
  r.remove('Kettle-Facts.md');
  assert.deepEqual(r.named('kettle facts'), []);
});

test('insertLogLine: appends at the end of the Log section, adds the section when missing, keeps the text above', () => {
  assert.equal(insertLogLine('# A\n\ntext\n', 'Log', '- x'), '# A\n\ntext\n\n## Log\n\n- x\n');
  assert.equal(insertLogLine('# A\n## Log\n- a\n', 'Log', '- b'), '# A\n## Log\n- a\n- b\n');
  assert.equal(insertLogLine('# A\n## log\n\n## Next\nz\n', 'Log', '- b'), '# A\n## log\n\n- b\n\n## Next\nz\n');
  assert.equal(insertLogLine('## Log\n- a\n### Sub\n- s\n## After\n', 'Log', '- b'), '## Log\n- a\n### Sub\n- s\n- b\n\n## After\n');
  assert.equal(insertLogLine('```\n## Log\n```\n', 'Log', '- b'), '```\n## Log\n```\n\n## Log\n\n- b\n', 'a heading inside code is not the Log');
});

test('the frontmatter fast path agrees with the YAML parser wherever it answers', () => {
  const cases = [
    'tags: [a, b]\naliases: [alias 1]',
    'title: Hello world\nn: 12\nf: 1.5\nb: true\nx: null\ny: ~\nz:',
    'list:\n  - a\n  - 2\n  - true\nnext: x',
    'date: 2026-11-24',
    'q: "quoted"\ns: \'single\'',
    'e: []',
    'k: +12\nj: .5\nl: 1e3',
    'aliases:\n  - The Beta\n  - B',
    'v: -1',
    'w: yes',
    'u: 1_000',
    'em: ""',
  ];
  const fallbacks = ['c: C# notes', 'm: a: b', 'h: 0x1F', 'x: [a, [b]]', 'key with space: 1', 'p: "a\\"b"', 'r: hello # c', 'dup: 1\ndup: 2', 'nested:\n  a: 1'];
  for (const c of cases) {
    const doc = `---\n${c}\n---\nbody\n`;
    assert.deepEqual(simpleFrontmatter(doc), parseFrontmatter(doc), c);
  }
  for (const c of fallbacks) assert.equal(simpleFrontmatter(`---\n${c}\n---\n`), undefined, c);
  const broken = parseNote('---\na: [b\n---\nSee [[X]].\n');
  assert.match(broken.frontmatterError!, /not valid YAML/);
  assert.deepEqual(broken.links.map((l) => [l.target, l.line]), [['X', 4]]);
});

test('search: every word must match, name outranks alias outranks body, re-indexing replaces, removal forgets', () => {
  const s = new SearchIndex();
  s.put({ rel: 'body.md', name: 'body', aliases: [], body: 'orange orange orange juice' });
  s.put({ rel: 'alias.md', name: 'alias', aliases: ['Orange'], body: 'juice' });
  s.put({ rel: 'Orange.md', name: 'Orange', aliases: [], body: 'juice' });
  assert.deepEqual(s.search('orange', 10).map((h) => h.rel), ['Orange.md', 'alias.md', 'body.md']);
  assert.deepEqual(s.search('orange juice', 10).length, 3);
  assert.deepEqual(s.search('orange apple', 10), []);
  s.put({ rel: 'body.md', name: 'body', aliases: [], body: 'apple only' });
  assert.deepEqual(s.search('orange', 10).map((h) => h.rel), ['Orange.md', 'alias.md']);
  s.remove('Orange.md');
  assert.deepEqual(s.search('orange', 10).map((h) => h.rel), ['alias.md']);
  assert.equal(s.size, 2);
  for (let i = 0; i < 200; i++) s.put({ rel: 'churn.md', name: 'churn', aliases: [], body: `orange ${i}` });
  assert.deepEqual(s.search('orange', 10).map((h) => h.rel).sort(), ['alias.md', 'churn.md']);
  assert.deepEqual(s.search('Ünïcode', 10), []);
  s.put({ rel: 'u.md', name: 'u', aliases: [], body: 'Grüße aus Köln 東京' });
  assert.deepEqual(s.search('köln', 10).map((h) => h.rel), ['u.md']);
});
