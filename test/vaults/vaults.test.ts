/** Vaults over real HTTP: create/adopt, the resolver, notes, refile, inbox, search, hand edits, restart, git. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';

let t: TestEngine;
let base: string;

const write = async (root: string, rel: string, text: string) => {
  await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await writeFile(path.join(root, rel), text);
};

before(async () => {
  base = await tempDir('vaults-');
  t = await startTestEngine();
});
after(async () => {
  await t.close();
  await rm(base, { recursive: true, force: true });
});

async function makeVault(name: string, files: Record<string, string>, extra: Record<string, unknown> = {}) {
  const root = path.join(base, name);
  await mkdir(root, { recursive: true });
  for (const [rel, text] of Object.entries(files)) await write(root, rel, text);
  const res = await t.api('POST', '/api/vaults', { name, path: root, ...extra });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return root;
}

const meta = async (vault: string, p: string) => {
  const res = await t.api('GET', `/api/vaults/${vault}/note?path=${encodeURIComponent(p)}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.meta;
};
const resolutionOf = (m: any, target: string) => m.links.find((l: any) => l.target === target)?.resolution;

test('create: 201 with the default schema written, an existing vault.json adopted untouched, 409 for a mounted name or path', async () => {
  const root = await makeVault('plain', { 'a.md': '# A\n' });
  const schema = JSON.parse(await readFile(path.join(root, 'vault.json'), 'utf8'));
  assert.equal(schema.defaultType, 'note');
  assert.ok(schema.types.note);

  const own = path.join(base, 'adopted');
  await mkdir(own, { recursive: true });
  const text = JSON.stringify({ version: 1, types: { idea: { folder: 'ideas', fields: { status: { type: 'string', required: true } } } }, inbox: 'triage' }, null, 1);
  await writeFile(path.join(own, 'vault.json'), text);
  const res = await t.api('POST', '/api/vaults', { name: 'adopted', path: own, schema: { types: { other: { folder: 'x' } } } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.equal(res.body.adopted, true);
  assert.deepEqual(Object.keys(res.body.schema.types), ['idea']);
  assert.equal(await readFile(path.join(own, 'vault.json'), 'utf8'), text, 'vault.json is never overwritten');

  assert.equal((await t.api('POST', '/api/vaults', { name: 'plain', path: path.join(base, 'adopted') })).status, 409);
  const again = await t.api('POST', '/api/vaults', { name: 'plain2', path: root });
  assert.equal(again.status, 409);
  assert.match(again.body.error, /already mounted/);
  const bad = await t.api('POST', '/api/vaults', { name: 'bad', path: root, schema: { types: { note: { fields: { x: { type: 'color' } } } } } });
  assert.equal(bad.status, 400);

  const list = await t.api('GET', '/api/vaults');
  assert.equal(list.status, 200);
  const plain = list.body.find((v: any) => v.name === 'plain');
  assert.equal(plain.notes, 1);
  assert.equal(plain.inbox, 0);
  // The vault is a mount: its notes are files under the vault name.
  const file = await t.api('GET', '/api/files/plain/a.md');
  assert.equal(file.body.content, '# A\n');
});

test('the resolver: exact path, suffix, shortest name, tie is ambiguous, aliases, headings, embeds, markdown links, unresolved', async () => {
  await makeVault('links', {
    '.obsidian/app.json': '{}',
    'Alpha.md': '# Alpha\n## Plans\n',
    'deep/Alpha.md': '# Deeper alpha\n',
    'x/Beta.md': '---\naliases: [B, "The Beta"]\n---\n# Beta\n',
    'y/Beta.md': '# Other beta\n',
    'work/projects/Gamma.md': '# Gamma\n',
    'd/Delta.md': 'shallow\n',
    'e/f/Delta.md': 'deep\n',
    'pic.png': 'not really a png',
    'Hub.md': [
      '---',
      'tags: [hub]',
      '---',
      'See [[Alpha]] and [[deep/Alpha|the deep one]] and [[Beta]] and [[the beta]].',
      'Also [[Delta]], [[projects/Gamma]], [[Alpha#plans]], [[Alpha#Nowhere]], ![[pic.png]], [g](work/projects/Gamma.md) and [[Missing note]].',
      '`[[not a link]]`',
      '```',
      '[[also not a link]]',
      '```',
    ].join('\n'),
  });
  const m = await meta('links', 'Hub.md');
  assert.equal(m.path, 'links/Hub.md');
  assert.deepEqual(resolutionOf(m, 'Alpha'), { status: 'resolved', path: 'links/Alpha.md', via: 'path' }, 'an exact path comes first');
  assert.deepEqual(resolutionOf(m, 'Delta'), { status: 'resolved', path: 'links/d/Delta.md', via: 'name' }, 'the shallowest of two same names wins');
  assert.deepEqual(resolutionOf(m, 'deep/Alpha'), { status: 'resolved', path: 'links/deep/Alpha.md', via: 'path' });
  assert.deepEqual(resolutionOf(m, 'Beta'), { status: 'ambiguous', candidates: ['links/x/Beta.md', 'links/y/Beta.md'] }, 'two at one depth are reported, not guessed');
  assert.deepEqual(resolutionOf(m, 'the beta'), { status: 'resolved', path: 'links/x/Beta.md', via: 'alias' });
  assert.deepEqual(resolutionOf(m, 'projects/Gamma'), { status: 'resolved', path: 'links/work/projects/Gamma.md', via: 'suffix' });
  assert.deepEqual(resolutionOf(m, 'work/projects/Gamma.md'), { status: 'resolved', path: 'links/work/projects/Gamma.md', via: 'relative' });
  assert.deepEqual(resolutionOf(m, 'pic.png'), { status: 'resolved', path: 'links/pic.png', via: 'path' });
  const headings = m.links.filter((l: any) => l.target === 'Alpha' && l.heading);
  assert.deepEqual(headings.map((l: any) => [l.heading, l.headingFound]), [['plans', true], ['Nowhere', false]]);
  assert.equal(m.links.find((l: any) => l.target === 'deep/Alpha').label, 'the deep one');
  assert.equal(m.links.find((l: any) => l.target === 'pic.png').kind, 'embed');
  assert.deepEqual(m.unresolved, ['Missing note']);
  assert.ok(!m.links.some((l: any) => /not a link/.test(l.target)), 'code is not linked');
  assert.deepEqual(m.ambiguous, [{ target: 'Beta', candidates: ['links/x/Beta.md', 'links/y/Beta.md'] }]);
  assert.ok(m.problems.some((p: string) => /ambiguous/.test(p)));

  const alpha = await meta('links', 'links/Alpha.md');
  assert.deepEqual(alpha.backlinks, ['links/Hub.md']);
  const index = await t.api('GET', '/api/vaults/links/index');
  assert.equal(index.status, 200);
  assert.ok(!index.body.notes.some((n: any) => n.path.includes('.obsidian')), 'hidden folders are not notes');
  assert.equal(index.body.notes.length, 8);
});

test('notes: create filed by type with required fields checked, edit never creates, refile keeps the old name as an alias', async () => {
  const schema = {
    types: {
      note: { folder: 'notes' },
      person: { folder: 'people', fields: { role: { type: 'string', required: true }, age: { type: 'number' } } },
    },
  };
  const root = await makeVault('crm', { 'notes/Meeting.md': 'Met [[Ada]] today.\n' }, { schema });
  const missing = await t.api('POST', '/api/vaults/crm/notes', { name: 'Ada', type: 'person', content: '# Ada\n' });
  assert.equal(missing.status, 400);
  assert.match(missing.body.error, /"role" \(string\) is required/);
  const wrong = await t.api('POST', '/api/vaults/crm/notes', { name: 'Ada', type: 'person', content: '---\nrole: x\nage: old\n---\n' });
  assert.equal(wrong.status, 400);
  assert.match(wrong.body.error, /"age" must be a number/);
  const unknown = await t.api('POST', '/api/vaults/crm/notes', { name: 'Ada', type: 'robot', content: '' });
  assert.equal(unknown.status, 400);
  assert.match(unknown.body.error, /the types are note, person/);

  const made = await t.api('POST', '/api/vaults/crm/notes', { name: 'Ada', type: 'person', content: '---\nrole: engineer\n---\n# Ada\n' });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.equal(made.body.note, 'crm/people/Ada.md');
  assert.equal(made.body.meta.type, 'person');
  assert.equal((await t.api('POST', '/api/vaults/crm/notes', { name: 'Ada', type: 'person', content: '---\nrole: x\n---\n' })).status, 409);
  assert.deepEqual((await meta('crm', 'people/Ada.md')).backlinks, ['crm/notes/Meeting.md']);

  const put404 = await t.api('PUT', '/api/vaults/crm/note?path=notes/Nope.md', { content: 'x' });
  assert.equal(put404.status, 404);
  await assert.rejects(stat(path.join(root, 'notes/Nope.md')));
  const put = await t.api('PUT', '/api/vaults/crm/note?path=crm/notes/Meeting.md', { content: 'Met [[Ada]] and [[Bob]].\n' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.deepEqual(put.body.meta.unresolved, ['Bob']);

  const refiled = await t.api('POST', '/api/vaults/crm/refile', { path: 'people/Ada.md', name: 'Ada Lovelace' });
  assert.equal(refiled.status, 200, JSON.stringify(refiled.body));
  assert.equal(refiled.body.note, 'crm/people/Ada Lovelace.md');
  assert.deepEqual(refiled.body.meta.aliases, ['Ada']);
  await assert.rejects(stat(path.join(root, 'people/Ada.md')));
  const meeting = await meta('crm', 'notes/Meeting.md');
  assert.deepEqual(resolutionOf(meeting, 'Ada'), { status: 'resolved', path: 'crm/people/Ada Lovelace.md', via: 'alias' }, 'an old wikilink still resolves');

  const retyped = await t.api('POST', '/api/vaults/crm/refile', { path: 'notes/Meeting.md', type: 'person' });
  assert.equal(retyped.status, 400, 'the new type’s required fields are checked');
  const noop = await t.api('POST', '/api/vaults/crm/refile', { path: 'notes/Meeting.md' });
  assert.equal(noop.status, 400);
});

test('inbox: accept files a note into its type folder or a given folder; reject deletes; counts follow', async () => {
  const root = await makeVault('tri', {
    'inbox/One.md': '---\ntype: note\n---\none\n',
    'inbox/Two.md': 'two\n',
    'inbox/Three.md': 'three\n',
  });
  assert.equal((await t.api('GET', '/api/vaults')).body.find((v: any) => v.name === 'tri').inbox, 3);
  const acc = await t.api('POST', '/api/vaults/tri/inbox/accept', { file: 'One.md' });
  assert.equal(acc.status, 200, JSON.stringify(acc.body));
  assert.equal(acc.body.note, 'tri/notes/One.md');
  assert.equal(acc.body.meta.inbox, false);
  const acc2 = await t.api('POST', '/api/vaults/tri/inbox/accept', { file: 'tri/inbox/Two.md', folder: 'archive/2026' });
  assert.equal(acc2.body.note, 'tri/archive/2026/Two.md');
  const rej = await t.api('POST', '/api/vaults/tri/inbox/reject', { file: 'Three' });
  assert.equal(rej.status, 200, JSON.stringify(rej.body));
  await assert.rejects(stat(path.join(root, 'inbox/Three.md')));
  assert.equal((await t.api('POST', '/api/vaults/tri/inbox/reject', { file: 'Three' })).status, 404);
  assert.equal((await t.api('POST', '/api/vaults/tri/inbox/accept', { file: 'notes/One.md' })).status, 404, 'only inbox notes are triaged');
  const counts = (await t.api('GET', '/api/vaults')).body.find((v: any) => v.name === 'tri');
  assert.deepEqual([counts.notes, counts.inbox], [2, 0]);
});

test('search ranks a name hit above body mentions, matches aliases, gives snippets and honours limit', async () => {
  const files: Record<string, string> = {
    'Kettle.md': 'A note about boiling water.\n',
    'Tea.md': '---\naliases: [Chai]\n---\nThe kettle is on; water boils at 100 degrees.\n',
  };
  for (let i = 0; i < 30; i++) files[`filler/f${i}.md`] = `Filler ${i} mentions the kettle once among many other words.\n`;
  await makeVault('find', files);
  const res = await t.api('GET', '/api/vaults/find/search?q=kettle');
  assert.equal(res.status, 200);
  assert.equal(res.body.results.length, 20, 'limit defaults to 20');
  assert.equal(res.body.results[0].path, 'find/Kettle.md');
  assert.ok(res.body.results[0].matched.includes('name'));
  const tea = res.body.results.find((r: any) => r.path === 'find/Tea.md');
  assert.match(tea.snippet, /kettle is on/);
  const chai = await t.api('GET', '/api/vaults/find/search?q=chai&limit=5');
  assert.deepEqual(chai.body.results.map((r: any) => [r.path, r.matched]), [['find/Tea.md', ['alias']]]);
  const both = await t.api('GET', '/api/vaults/find/search?q=water%20boils');
  assert.deepEqual(both.body.results.map((r: any) => r.path), ['find/Tea.md'], 'every word must match');
  assert.equal((await t.api('GET', '/api/vaults/find/search')).status, 400);
  assert.equal((await t.api('GET', '/api/vaults/nope/search?q=x')).status, 404);
});

test('hand edits made outside the engine are picked up (watcher), and a restart re-reads only changed notes', async () => {
  const home = await tempDir('vaults-home-');
  const root = path.join(base, 'hand');
  await mkdir(root, { recursive: true });
  for (let i = 0; i < 40; i++) await write(root, `n/note${i}.md`, `Note ${i} links [[note${(i + 1) % 40}]].\n`);
  let e = await startTestEngine({ home, keepHome: true });
  try {
    assert.equal((await e.api('POST', '/api/vaults', { name: 'hand', path: root })).status, 201);
    const first = await e.api('GET', '/api/vaults/hand/index');
    assert.deepEqual([first.body.stats.parsed, first.body.stats.reused], [40, 0]);
    await write(root, 'n/fresh.md', 'A zebracorn appears, see [[note3]].\n');
    await waitUntil(async () => (await e.api('GET', '/api/vaults/hand/search?q=zebracorn')).body.results.length === 1);
    assert.deepEqual((await e.api('GET', '/api/vaults/hand/note?path=n/note3.md')).body.meta.backlinks, ['hand/n/fresh.md', 'hand/n/note2.md']);
    await rm(path.join(root, 'n/fresh.md'));
    await waitUntil(async () => (await e.api('GET', '/api/vaults/hand/search?q=zebracorn')).body.results.length === 0);
    // A folder made outside (its notes reported as created), then moved out of the vault (reported
    // once, by the folder's own path: the watcher keeps nothing per file): its notes come and go with it.
    await mkdir(path.join(root, 'late/deeper'), { recursive: true });
    await write(root, 'late/deeper/okapi.md', 'An okapi, see [[note5]].\n');
    await waitUntil(async () => (await e.api('GET', '/api/vaults/hand/search?q=okapi')).body.results.length === 1);
    await rename(path.join(root, 'late'), path.join(home, 'late-moved-away'));
    await waitUntil(async () => (await e.api('GET', '/api/vaults/hand/search?q=okapi')).body.results.length === 0);
    assert.deepEqual((await e.api('GET', '/api/vaults/hand/note?path=n/note5.md')).body.meta.backlinks, ['hand/n/note4.md']);
  } finally {
    await e.close();
  }
  // While the engine is down, one note changes.
  await write(root, 'n/note7.md', 'Note 7 now mentions a quokka.\n');
  e = await startTestEngine({ home, keepHome: true });
  try {
    const idx = await e.api('GET', '/api/vaults/hand/index');
    assert.equal(idx.status, 200, JSON.stringify(idx.body));
    assert.deepEqual([idx.body.stats.parsed, idx.body.stats.reused], [1, 39], 'only the changed note is read again');
    assert.equal((await e.api('GET', '/api/vaults/hand/search?q=quokka')).body.results[0].path, 'hand/n/note7.md');
    assert.deepEqual((await e.api('GET', '/api/vaults/hand/note?path=n/note8.md')).body.meta.backlinks, [], 'note7 no longer links note8');
  } finally {
    await e.close();
    await rm(home, { recursive: true, force: true });
  }
});

test('git: true makes the folder a repository and every engine write a commit', async () => {
  const root = await makeVault('journal', { 'notes/Day.md': '# Day\n' }, { git: true });
  const log = () => execFileSync('git', ['log', '--format=%s'], { cwd: root, encoding: 'utf8' }).trim().split('\n');
  assert.deepEqual(log(), ['vault: create']);
  assert.equal((await t.api('POST', '/api/vaults/journal/notes', { name: 'Plan', type: 'note', content: 'plan\n' })).status, 201);
  assert.equal((await t.api('PUT', '/api/vaults/journal/note?path=notes/Day.md', { content: '# Day\nwent well\n' })).status, 200);
  assert.deepEqual(log(), ['edit notes/Day.md', 'create notes/Plan.md', 'vault: create']);
  assert.equal(execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' }), '');
  // A note made by hand (never committed) refiled: the engine commits the new file, not other hand edits.
  await write(root, 'notes/Hand.md', 'by hand\n');
  await write(root, 'notes/Other.md', 'also by hand\n');
  const refiled = await t.api('POST', '/api/vaults/journal/refile', { path: 'notes/Hand.md', name: 'Handmade' });
  assert.equal(refiled.status, 200, JSON.stringify(refiled.body));
  assert.equal(log()[0], 'refile notes/Hand.md -> notes/Handmade.md');
  assert.equal(execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' }), '?? notes/Other.md\n');
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail('condition not met in time');
}
