/**
 * Issue 38 §1 and §3: a vault's agentForbidden notes stay hidden from every engine-side read. A link
 * from the vault's public folder to a forbidden note, shipped with the folder or planted by a
 * sandboxed command after the index was built (the watcher path), is judged where it leads: neither
 * it nor the note itself reaches search_code or the embeddings endpoint, the atlas brief, apply,
 * complete or inline-edit (refused with a sentence before any model sees them), or the brain.
 * (Checked to fail with the fenced reader bypassed.)
 */
// needs: better-sqlite3 (the semantic index lives in SQLite with sqlite-vec)
import assert from 'node:assert/strict';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { tempDir } from '../support/engine.js';
import { startFencedHarness, type FencedHarness } from './fenced-harness.js';

let h: FencedHarness;
let base: string;
let root: string;
const DIARY = 'the otter diary: the vault password is kelp-7731';
const refusal = /hidden from models by vault "notes" \(agentForbidden: private\/\*\*\)/;

before(async () => {
  h = await startFencedHarness();
  base = await tempDir('fenced-vault-');
  root = path.join(base, 'notes');
  await mkdir(path.join(root, 'private'), { recursive: true });
  await mkdir(path.join(root, 'public'), { recursive: true });
  await writeFile(path.join(root, 'Home.md'), '# Home\n\nPublic notes about otters and kelp.\n');
  await writeFile(path.join(root, 'private', 'diary.md'), `${DIARY}\n`);
  // Shipped with the folder (a synced or cloned vault): a public name for a private note.
  await symlink('../private/diary.md', path.join(root, 'public', 'shipped.md'));
  const made = await h.t.api('POST', '/api/vaults', { name: 'notes', path: root, schema: { agentForbidden: ['private/**'] } });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  await h.index();
});
after(async () => {
  await h.close();
  await rm(base, { recursive: true, force: true });
});

/** Every way an editor helper could hand the note to a model: each refused with the vault's sentence, no model asked. */
async function editorRefuses(p: string): Promise<void> {
  const before = h.model.requests.length;
  const applied = await h.t.api('POST', '/api/apply', { path: p, snippet: '// ... existing code ...\nmore\n' });
  assert.equal(applied.status, 200);
  assert.equal(applied.body.merged, null);
  assert.match(applied.body.reason, refusal, `apply ${p}`);
  const withBase = await h.t.api('POST', '/api/apply', { path: p, snippet: '// ... existing code ...\nmore\n', base: DIARY });
  assert.equal(withBase.body.merged, null);
  assert.match(withBase.body.reason, refusal, `apply ${p} with the editor's buffer`);
  assert.equal((await h.t.api('PUT', '/api/settings', { completions: { enabled: true, provider: null } })).status, 200);
  const completed = await h.t.api('POST', '/api/complete', { path: p, prefix: DIARY, suffix: '' });
  assert.equal(completed.status, 200);
  assert.equal(completed.body.text, null);
  assert.match(completed.body.reason, refusal, `complete ${p}`);
  const inline = await h.t.api('POST', '/api/inline-edit', { path: p, code: DIARY, instruction: 'make it shorter' });
  assert.equal(inline.status, 403, JSON.stringify(inline.body));
  assert.match(inline.body.error, refusal, `inline-edit ${p}`);
  assert.equal(h.model.requests.length, before, 'no model was asked');
}

test('a forbidden note, and a shipped public link to it, reach no index, brief, editor helper or brain', async () => {
  const embedded = h.embeddedPaths();
  assert.ok(embedded.has('notes/Home.md'), 'the public note is indexed');
  for (const p of ['notes/private/diary.md', 'notes/public/shipped.md']) assert.equal(embedded.has(p), false, `${p} was embedded`);

  const brief = await h.t.api('POST', '/api/atlas/standard', { scope: 'notes' });
  assert.equal(brief.status, 200, JSON.stringify(brief.body));
  assert.doesNotMatch(JSON.stringify(brief.body.document), /diary|shipped/);

  await h.turn('vault', [
    { toolCalls: [{ name: 'search_code', args: { query: 'otter diary vault password kelp' } }, { name: 'read_file', args: { path: 'notes/public/shipped.md' } }, { name: 'read_file', args: { path: 'notes/private/diary.md' } }] },
    { text: 'nothing there' },
  ]);
  assert.match(h.searchResults().join('\n'), /notes\/Home\.md/);
  for (const p of ['notes/public/shipped.md', 'notes/private/diary.md']) await editorRefuses(p);
  const brain = await h.t.api('GET', '/api/brain?limit=5000');
  assert.doesNotMatch(JSON.stringify(brain.body.edges.filter((e: any) => e.type === 'read')), /diary|shipped/);
  h.assertNothingLeaked([DIARY, 'kelp-7731']);
});

test('a public link to a forbidden note planted after indexing (the watcher path) is not indexed', async () => {
  const seq = h.lastSeq();
  await h.plant('vault-late', `ln -s ../private/diary.md '${path.join(root, 'public', 'leak.md')}'`);
  const job = await h.indexed(seq);
  assert.equal(job.kind, 'index.completed', String(job.error));
  assert.equal(h.embeddedPaths().has('notes/public/leak.md'), false, 'the planted link was embedded');
  await h.turn('vault-late-search', [{ toolCalls: [{ name: 'search_code', args: { query: 'vault password kelp' } }] }, { text: 'nothing' }]);
  await editorRefuses('notes/public/leak.md');
  h.assertNothingLeaked([DIARY, 'kelp-7731']);
  assert.ok(h.t.logs.some((l) => l.startsWith('fenced read: refused "notes/public/leak.md"')), 'the refusal is logged');
});
