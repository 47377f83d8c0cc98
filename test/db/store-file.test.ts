/**
 * connections.json in memory (src/capabilities/db/store-file.ts): lookups are answered without
 * reading the file again, the engine's own writes show at once, and a hand edit of the file (in
 * place or by replacing it) is still noticed on the next lookup.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Home } from '../../src/kernel/home.js';
import { cachedJsonFile } from '../../src/capabilities/db/store-file.js';

describe('connections.json in memory', () => {
  let dir: string;
  let home: Home;
  let reads = 0;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'engine-store-file-'));
    home = new Home(dir);
    const readJson = home.readJson.bind(home);
    home.readJson = (async (file: string, fallback: unknown) => {
      reads++;
      return readJson(file, fallback);
    }) as Home['readJson'];
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('reads the file once, then answers from memory until it changes', async () => {
    const file = cachedJsonFile<{ n: number }>(home, 'db/connections.json', () => ({ n: 0 }));
    assert.deepEqual(await file.read(), { n: 0 }, 'no file yet: the empty shape');
    await file.write({ n: 1 });
    reads = 0;
    for (let k = 0; k < 5; k++) assert.deepEqual(await file.read(), { n: 1 });
    assert.equal(reads, 0, "the engine's own write is the copy in memory");

    // A hand edit in place, same length, so only the times and the content differ.
    await writeFile(path.join(dir, 'db/connections.json'), '{"n": 2}\n'.padEnd(14));
    assert.deepEqual(await file.read(), { n: 2 });
    assert.equal(reads, 1);
    // A hand edit by replacing the file (a new inode), as editors and restores do.
    await rm(path.join(dir, 'db/connections.json'));
    assert.deepEqual(await file.read(), { n: 0 }, 'a removed file reads as empty');
    await writeFile(path.join(dir, 'db/connections.json'), '{"n": 4}');
    assert.deepEqual(await file.read(), { n: 4 });
    assert.equal(reads, 3);
    await writeFile(path.join(dir, 'db/connections.json'), '{broken');
    await assert.rejects(file.read(), /not valid JSON/);
  });
});
