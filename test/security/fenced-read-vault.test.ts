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
const PASSWORD = 'kelp-7731';
const DIARY = `the otter diary: the vault password is ${PASSWORD}`;
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
  // Code the atlas briefs (it maps code, not prose), hidden the same way and linked the same way.
  await writeFile(path.join(root, 'private', 'keys.ts'), `export const vaultPassword = '${PASSWORD}';\n`);
  await symlink('../private/keys.ts', path.join(root, 'public', 'keys.ts'));
  const made = await h.t.api('POST', '/api/vaults', { name: 'notes', path: root, schema: { agentForbidden: ['private/**'] } });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  await h.index();
});
after(async () => {
  await h.close();
  await rm(base, { recursive: true, force: true });
});

test('a forbidden note, and a shipped public link to it, reach no index, brief, editor helper or brain', async () => {
  const embedded = h.embeddedPaths();
  assert.ok(embedded.has('notes/Home.md'), 'the public note is indexed');
  for (const p of ['notes/private/diary.md', 'notes/public/shipped.md', 'notes/private/keys.ts', 'notes/public/keys.ts']) assert.equal(embedded.has(p), false, `${p} was embedded`);

  const brief = await h.t.api('POST', '/api/atlas/standard', { scope: 'notes' });
  assert.equal(brief.status, 200, JSON.stringify(brief.body));
  assert.doesNotMatch(JSON.stringify(brief.body.document), /diary|shipped|keys\.ts|vaultPassword/);

  await h.turn('vault', [
    { toolCalls: [{ name: 'search_code', args: { query: 'otter diary vault password kelp' } }, { name: 'read_file', args: { path: 'notes/public/shipped.md' } }, { name: 'read_file', args: { path: 'notes/private/diary.md' } }, { name: 'read_file', args: { path: 'notes/public/keys.ts' } }] },
    { text: 'nothing there' },
  ]);
  assert.match(h.searchResults().join('\n'), /notes\/Home\.md/);
  await h.editorRefused(['notes/public/shipped.md', 'notes/private/diary.md', 'notes/public/keys.ts'], refusal);
  const brain = await h.t.api('GET', '/api/brain?limit=5000');
  assert.doesNotMatch(JSON.stringify(brain.body.edges.filter((e: any) => e.type === 'read')), /diary|shipped|keys\.ts/);
  h.assertNothingLeaked([DIARY, PASSWORD]);
});

test('a public link to a forbidden note planted after indexing (the watcher path) is not indexed', async () => {
  const seq = h.lastSeq();
  await h.plant('vault-late', `ln -s ../private/diary.md '${path.join(root, 'public', 'leak.md')}'\necho 'late otter witness' > '${path.join(root, 'public', 'late-ok.md')}'`);
  const job = await h.indexed(seq, 'notes/public/late-ok.md');
  assert.equal(job.kind, 'index.completed', String(job.error));
  assert.equal(h.embeddedPaths().has('notes/public/leak.md'), false, 'the planted link was embedded');
  await h.turn('vault-late-search', [{ toolCalls: [{ name: 'search_code', args: { query: 'vault password kelp' } }] }, { text: 'nothing' }]);
  await h.editorRefused(['notes/public/leak.md'], refusal);
  h.assertNothingLeaked([DIARY, PASSWORD]);
  assert.ok(h.t.logs.some((l) => l.startsWith('fenced read: refused "notes/public/leak.md"')), 'the refusal is logged');
});
