/** A vault never reads outside its folder: symlinks (to files or folders) are not notes, `..` is refused. */
import assert from 'node:assert/strict';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';

let t: TestEngine;
let base: string;

before(async () => {
  base = await tempDir('vault-fence-');
  t = await startTestEngine();
});
after(async () => {
  await t.close();
  await rm(base, { recursive: true, force: true });
});

test('symlinked notes and folders leading outside are not indexed, read, searched or linked; .. is refused', async () => {
  const outside = path.join(base, 'outside');
  const root = path.join(base, 'v');
  await mkdir(outside, { recursive: true });
  await mkdir(root, { recursive: true });
  await writeFile(path.join(outside, 'loot.md'), 'the wombat secret\n');
  await writeFile(path.join(root, 'Home.md'), 'See [[loot]].\n');
  await symlink(path.join(outside, 'loot.md'), path.join(root, 'loot.md'));
  await symlink(outside, path.join(root, 'linked'));
  assert.equal((await t.api('POST', '/api/vaults', { name: 'v', path: root })).status, 201);
  const index = await t.api('GET', '/api/vaults/v/index');
  assert.deepEqual(index.body.notes.map((n: any) => n.path), ['v/Home.md']);
  assert.deepEqual(index.body.notes[0].unresolved, ['loot']);
  for (const p of ['loot.md', 'linked/loot.md', 'v/linked/loot.md']) {
    const res = await t.api('GET', `/api/vaults/v/note?path=${encodeURIComponent(p)}`);
    assert.equal(res.status, 404, `${p}: ${JSON.stringify(res.body)}`);
    assert.doesNotMatch(JSON.stringify(res.body), /wombat/);
  }
  assert.deepEqual((await t.api('GET', '/api/vaults/v/search?q=wombat')).body.results, []);
  const up = await t.api('GET', `/api/vaults/v/note?path=${encodeURIComponent('../outside/loot.md')}`);
  assert.equal(up.status, 400);
  const put = await t.api('PUT', `/api/vaults/v/note?path=linked/loot.md`, { content: 'overwritten' });
  assert.equal(put.status, 404);
});
