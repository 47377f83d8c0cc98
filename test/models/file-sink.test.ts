/** The download sink: bytes written and hashed on its thread, slices of one buffer kept together, resume hashing what is on disk. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHash, randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from '../support/engine.js';
import { SinkThread } from '../../src/capabilities/models/file-sink.js';

describe('models: the download sink', () => {
  let dir: string;
  const sinks = new SinkThread();
  before(async () => {
    dir = await tempDir('models-sink-');
  });
  after(async () => {
    sinks.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes and hashes slices of shared buffers in order, across batches, and moves (not copies) them', async () => {
    const source = randomBytes(11 << 20);
    // Three "socket reads": the first two each split into slices (as chunked encoding does), the last whole.
    // The first read's second slice arrives with a full batch (5 MB) waiting: that batch must not leave
    // without it, or moving the buffer would empty the slice in hand.
    const reads = [Buffer.from(source.subarray(0, 6 << 20)), Buffer.from(source.subarray(6 << 20, 9 << 20)), Buffer.from(source.subarray(9 << 20))];
    const chunks = [reads[0].subarray(0, 5 << 20), reads[0].subarray(5 << 20), reads[1].subarray(0, 3), reads[1].subarray(3), reads[2]];
    const file = path.join(dir, 'a.bin');
    const sink = await sinks.open(file, 0, 'sha256');
    for (const c of chunks) if (!sink.write(c)) await sink.drained();
    assert.equal(await sink.end(), createHash('sha256').update(source).digest('hex'));
    assert.ok((await readFile(file)).equals(source));
    assert.equal(reads[0].buffer.byteLength, 0, 'the first read was transferred to the thread, not copied');
  });

  it('resumes: keeps the bytes on disk, hashes them first (after a git blob prefix), writes after them', async () => {
    const source = randomBytes(300_000);
    const file = path.join(dir, 'b.bin');
    await writeFile(file, source.subarray(0, 123_456));
    const sink = await sinks.open(file, 123_456, 'sha1', `blob ${source.length}\0`);
    sink.write(Buffer.from(source.subarray(123_456)));
    assert.equal(await sink.end(), createHash('sha1').update(`blob ${source.length}\0`).update(source).digest('hex'));
    assert.ok((await readFile(file)).equals(source));
  });

  it('hashes a finished file without writing to it', async () => {
    const source = randomBytes(5 << 20);
    const file = path.join(dir, 'c.bin');
    await writeFile(file, source);
    const sink = await sinks.open(file, source.length, 'sha256');
    assert.equal(await sink.end(), createHash('sha256').update(source).digest('hex'));
    assert.ok((await readFile(file)).equals(source));
  });
});
