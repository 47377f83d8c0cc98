/**
 * A digest computed on a worker thread while the bytes stream to disk: sha256 runs at about the
 * speed of a fast loopback link, so hashing inline would halve a download's throughput.
 */
import { Worker } from 'node:worker_threads';

const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const h = createHash(workerData.algorithm);
if (workerData.prefix) h.update(workerData.prefix);
parentPort.on('message', (m) => {
  if (m === null) { parentPort.postMessage(h.digest('hex')); return; }
  h.update(new Uint8Array(m));
});
`;

export class ThreadHash {
  private readonly worker: Worker;
  private readonly result: Promise<string>;

  constructor(algorithm: 'sha256' | 'sha1', prefix?: string) {
    this.worker = new Worker(SOURCE, { eval: true, workerData: { algorithm, prefix } });
    this.result = new Promise((resolve, reject) => {
      this.worker.once('message', resolve);
      this.worker.once('error', reject);
    });
  }

  update(chunk: Buffer): void {
    // A copy the worker owns (socket buffers are pooled and reused).
    const copy = chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength) as ArrayBuffer;
    this.worker.postMessage(copy, [copy]);
  }

  async digest(): Promise<string> {
    this.worker.postMessage(null);
    try {
      return await this.result;
    } finally {
      void this.worker.terminate();
    }
  }

  dispose(): void {
    void this.worker.terminate();
  }
}
