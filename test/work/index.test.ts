/**
 * The parsed items persist across restarts (`<home>/work-index/`): a restart re-parses only the
 * files whose mtime or size changed, and a file edited while the engine was down is read again.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { startTestEngine, tempDir } from '../support/engine.js';

let home = '';
after(async () => home && rm(home, { recursive: true, force: true }));

describe('work index across restarts', () => {
  it('serves unchanged files from the index and re-reads files edited while the engine was down', async () => {
    home = await tempDir();
    let t = await startTestEngine({ home });
    const ws = t.engine.fence.root('workspace').path;
    await t.api('PUT', '/api/work/idx', { prefix: 'IX' });
    for (const title of ['one', 'two']) assert.equal((await t.api('POST', '/api/work/idx', { kind: 'task', title })).status, 201);
    await t.close();

    const indexDir = path.join(home, 'work-index');
    const [indexName] = readdirSync(indexDir);
    const indexFile = path.join(indexDir, indexName);
    const index = JSON.parse(readFileSync(indexFile, 'utf8'));
    assert.deepEqual(Object.keys(index.files).sort(), ['IX-1.md', 'IX-2.md']);
    // Proof that an unchanged file is not parsed again: an index entry whose stamp still matches wins.
    index.files['IX-1.md'].item.title = 'from the index';
    writeFileSync(indexFile, JSON.stringify(index));
    const f2 = path.join(ws, '.work/idx/items/IX-2.md');
    writeFileSync(f2, readFileSync(f2, 'utf8').replace('title: two', 'title: two, edited while down'));

    t = await startTestEngine({ home });
    try {
      const list = await t.api('GET', '/api/work?project=idx');
      const titles = Object.fromEntries(list.body.boards[0].items.map((i: any) => [i.key, i.title]));
      assert.deepEqual(titles, { 'IX-1': 'from the index', 'IX-2': 'two, edited while down' });
      const next = await t.api('POST', '/api/work/idx', { kind: 'task', title: 'three' });
      assert.equal(next.body.key, 'IX-3');
    } finally {
      await t.close();
    }
  });
});
