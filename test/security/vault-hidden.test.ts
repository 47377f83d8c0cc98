/**
 * Issue 23 §2: a vault's agentForbidden paths hold for every tool a model calls, not only the vault
 * tool: each file tool refuses them, list_dir, grep and glob leave them out, run_shell does not see
 * them in its sandbox, and the vault's schema (which holds the globs) is a protected path.
 */
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { allowAllGate } from '../../src/tools/types.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';

let t: TestEngine;
let base: string;
let root: string;
const SECRET = 'the otter password';

before(async () => {
  base = await tempDir('vault-hidden-');
  t = await startTestEngine();
  root = path.join(base, 'notes');
  await mkdir(path.join(root, 'private'), { recursive: true });
  await writeFile(path.join(root, 'Home.md'), 'Public note about otters.\n');
  await writeFile(path.join(root, 'private', 'diary.md'), `${SECRET}\n`);
  const made = await t.api('POST', '/api/vaults', { name: 'notes', path: root, schema: { agentForbidden: ['private/**'] } });
  assert.equal(made.status, 201, JSON.stringify(made.body));
});
after(async () => {
  await t.close();
  await rm(base, { recursive: true, force: true });
});

let n = 0;
/** A model's call, the gate out of the way (allow everything): what stops it here is the fence. */
const call = (name: string, args: Record<string, unknown>, gate = true) =>
  t.engine.tools.call({ callId: `h${++n}`, name, args }, { signal: new AbortController().signal, emit: () => undefined, attended: false }, gate ? { gate: allowAllGate } : {});

test('every file tool refuses a forbidden path, whatever the permission rules say', async () => {
  const refused = /"notes\/private\/diary\.md" is hidden from models by vault "notes" \(agentForbidden: private\/\*\*\)/;
  const cases: Array<[string, Record<string, unknown>]> = [
    ['read_file', { path: 'notes/private/diary.md' }],
    ['write_file', { path: 'notes/private/diary.md', content: 'overwritten' }],
    ['edit_file', { path: 'notes/private/diary.md', old_string: 'otter', new_string: 'weasel' }],
    ['multi_edit', { path: 'notes/private/diary.md', edits: [{ old_string: 'otter', new_string: 'weasel' }] }],
    ['delete_file', { path: 'notes/private/diary.md' }],
  ];
  for (const [tool, args] of cases) {
    const out = await call(tool, args);
    assert.equal(out.isError, true, `${tool}: ${out.text}`);
    assert.match(out.text, refused, tool);
    assert.doesNotMatch(out.text, /otter password/, tool);
  }
  const newFile = await call('write_file', { path: 'notes/private/new.md', content: 'planted' });
  assert.equal(newFile.isError, true, 'a new file under a forbidden folder is refused too');
  const dir = await call('list_dir', { path: 'notes/private' });
  assert.equal(dir.isError, true);
  assert.equal(await readFile(path.join(root, 'private', 'diary.md'), 'utf8'), `${SECRET}\n`, 'untouched');
});

test('list_dir, grep and glob leave forbidden paths out of their results', async () => {
  const listed = await call('list_dir', { path: 'notes' });
  assert.equal(listed.isError, false, listed.text);
  assert.match(listed.text, /Home\.md/);
  assert.doesNotMatch(listed.text, /private/);
  const grep = await call('grep', { pattern: 'otter' });
  assert.equal(grep.isError, false, grep.text);
  assert.match(grep.text, /notes\/Home\.md/);
  assert.doesNotMatch(grep.text, /password|private/);
  const glob = await call('glob', { pattern: '**/*.md' });
  assert.match(glob.text, /notes\/Home\.md/);
  assert.doesNotMatch(glob.text, /diary/);
  const aimed = await call('grep', { pattern: 'otter', path: 'notes/private' });
  assert.equal(aimed.isError, true);
  assert.match(aimed.text, /hidden from models/);
});

test('run_shell cat finds nothing there: the sandbox hides the forbidden paths', async () => {
  const cat = await call('run_shell', { command: `cat "${path.join(root, 'private', 'diary.md')}"; ls -a "${path.join(root, 'private')}"; cat "${path.join(root, 'Home.md')}"` });
  assert.doesNotMatch(cat.text, /otter password/, cat.text);
  assert.match(cat.text, /Public note about otters/, 'the rest of the vault is there');
  const write = await call('run_shell', { command: `echo planted > "${path.join(root, 'private', 'diary.md')}"; echo '{}' > "${path.join(root, 'vault.json')}"` });
  assert.notEqual(write.text, '', write.text);
  assert.equal(await readFile(path.join(root, 'private', 'diary.md'), 'utf8'), `${SECRET}\n`, 'a write there does not land');
  assert.match(await readFile(path.join(root, 'vault.json'), 'utf8'), /private\/\*\*/, "the schema is read-only to commands");
});

test("the vault's schema is a protected path: no model changes what it hides without a person", async () => {
  const out = await call('write_file', { path: 'notes/vault.json', content: '{"version":1,"agentForbidden":[]}' }, false);
  assert.equal(out.isError, true);
  assert.match(out.text, /protected_path\(vault\.json\).*the schema of vault "notes" decides what models may see there/);
  assert.match(await readFile(path.join(root, 'vault.json'), 'utf8'), /private\/\*\*/);
});
