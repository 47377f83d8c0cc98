/**
 * Where a download's bytes go: a worker thread that writes them to the `.incomplete` file and hashes
 * them, so receiving, writing and hashing all run at once. sha256 costs about what a fast loopback
 * link moves, so hashing on the engine's own thread (or writing and hashing one after the other)
 * would halve a download's throughput.
 *
 * The socket's own buffers travel to the worker without a copy: `postMessage` transfers their
 * ArrayBuffers in batches of a few MB. A response body chunk is a slice of one socket read and one
 * read may hold several slices (chunked encoding), so a buffer is handed over only once a chunk of
 * a later read has arrived (all slices of that read are then delivered) or the body has ended.
 * In the worker the batch goes to `fs.writev` (the thread pool) while the same thread hashes it.
 * At most `MAX_BATCHES_QUEUED` batches wait, which pauses the socket (bounded memory); on a slow link a
 * batch leaves every `FLUSH_MS` however small, so the partial file keeps growing for a later resume.
 */
import fs from 'node:fs/promises';
import { Worker } from 'node:worker_threads';

export type Algorithm = 'sha256' | 'sha1';
const BATCH_BYTES = 4 << 20;
const MAX_BATCHES_QUEUED = 4;
/** On a slow link a batch leaves after this long even if small, so a crash loses little and progress shows on disk. */
const FLUSH_MS = 200;

const SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const { createHash } = require('node:crypto');
let file;
const fail = (err, id) => parentPort.postMessage({ op: 'error', id, message: err.message });
const settle = () => {
  if (!file.ending || file.writing > 0) return;
  const { id, hash } = file;
  file = undefined;
  parentPort.postMessage({ op: 'done', id, digest: hash ? hash.digest('hex') : undefined });
};
parentPort.on('message', (m) => {
  try {
    if (m.op === 'open') {
      file = { id: m.id, fd: m.fd, at: m.from, writing: 0, ending: false, hash: m.algorithm ? createHash(m.algorithm) : undefined };
      if (file.hash && m.prefix) file.hash.update(m.prefix);
      if (file.hash && m.from > 0) {
        // Resuming: the digest covers the bytes already on disk too.
        const buf = Buffer.allocUnsafe(${BATCH_BYTES});
        for (let at = 0; at < m.from; ) {
          const n = fs.readSync(m.fd, buf, 0, Math.min(buf.length, m.from - at), at);
          if (n === 0) throw new Error('the partial file is shorter than it was');
          file.hash.update(buf.subarray(0, n));
          at += n;
        }
      }
    } else if (m.op === 'data') {
      const f = file;
      const views = m.parts.map(([b, o, n]) => new Uint8Array(b, o, n));
      const at = f.at;
      for (const v of views) f.at += v.length;
      f.writing++;
      // writev runs on the thread pool while this thread hashes the same bytes.
      fs.writev(f.fd, views, at, (err) => {
        f.writing--;
        if (err) return fail(err, f.id);
        parentPort.postMessage({ op: 'ack', id: f.id });
        if (f === file) settle();
      });
      if (f.hash) for (const v of views) f.hash.update(v);
    } else if (m.op === 'end') {
      file.ending = true;
      settle();
    }
  } catch (err) {
    fail(err, file && file.id);
  }
});
`;

/** One worker thread for a whole download (its files go one after the other). */
export class SinkThread {
  private worker: Worker | undefined;
  private listener: ((m: { op: string; id?: number; digest?: string; message?: string }) => void) | undefined;
  private failure: Error | undefined;
  private busy = false;
  private files = 0;

  /** No file open and the thread never failed: it can serve another download. */
  get healthy(): boolean {
    return !this.failure && !this.busy;
  }

  private get thread(): Worker {
    if (!this.worker) {
      const w = new Worker(SOURCE, { eval: true });
      w.on('message', (m) => this.listener?.(m));
      w.on('error', (err) => {
        this.failure = err;
        this.listener?.({ op: 'error', message: err.message });
      });
      w.unref();
      this.worker = w;
    }
    return this.worker;
  }

  /**
   * Opens `file` for writing from byte `from` (bytes before it are kept and, with `algorithm`,
   * hashed first, after `prefix`). Only one file is open at a time.
   */
  async open(file: string, from: number, algorithm?: Algorithm, prefix?: string): Promise<FileSink> {
    if (this.failure) throw this.failure;
    const handle = await fs.open(file, from > 0 ? 'r+' : 'w');
    // Held while a file is open (a download must not end with the process), released after.
    const thread = this.thread;
    thread.ref();
    this.busy = true;
    // Messages carry the file's id: a late answer about an earlier file never reaches this one.
    const id = ++this.files;
    const sink = new FileSink(thread, handle, (l) => (this.listener = (m) => (m.id === id || m.id === undefined) && l(m)), () => {
      this.busy = false;
      thread.unref();
    });
    this.thread.postMessage({ op: 'open', id, fd: handle.fd, from, algorithm, prefix });
    return sink;
  }

  close(): void {
    void this.worker?.terminate();
    this.worker = undefined;
  }
}

export class FileSink {
  private parts: Uint8Array[] = [];
  private batched = 0;
  private sentAt = Date.now();
  private queued = 0;
  private waiters: (() => void)[] = [];
  private failed: Error | undefined;
  private finished: ((digest: string | undefined) => void) | undefined;
  private rejectFinish: ((e: Error) => void) | undefined;
  private closed = false;

  constructor(
    private readonly worker: Worker,
    private readonly handle: fs.FileHandle,
    listen: (l: (m: { op: string; digest?: string; message?: string }) => void) => void,
    private readonly release: () => void,
  ) {
    listen((m) => {
      if (m.op === 'ack') {
        this.queued--;
        if (this.queued < MAX_BATCHES_QUEUED) for (const w of this.waiters.splice(0)) w();
      } else if (m.op === 'done') this.finished?.(m.digest);
      else if (m.op === 'error') this.fail(new Error(`writing the download failed: ${m.message}`));
    });
  }

  /** Takes a body chunk (its buffer is handed to the worker: the caller must not use it again). Answers false when the caller should wait for `drained()`. */
  write(chunk: Buffer): boolean {
    if (this.failed) throw this.failed;
    const last = this.parts.at(-1);
    // Everything before this chunk came from earlier socket reads, so its buffers may move.
    if (last && last.buffer !== chunk.buffer && (this.batched >= BATCH_BYTES || Date.now() - this.sentAt >= FLUSH_MS)) this.send(this.parts.splice(0));
    this.parts.push(chunk);
    this.batched += chunk.length;
    return this.queued < MAX_BATCHES_QUEUED;
  }

  drained(): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.queued < MAX_BATCHES_QUEUED) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Writes what is left, waits for every write, and answers the digest (when an algorithm was given). */
  async end(): Promise<string | undefined> {
    if (this.failed) throw this.failed;
    if (this.parts.length) this.send(this.parts.splice(0));
    const done = new Promise<string | undefined>((resolve, reject) => {
      this.finished = resolve;
      this.rejectFinish = reject;
    });
    this.worker.postMessage({ op: 'end' });
    try {
      return await done;
    } finally {
      await this.close();
    }
  }

  /** Gives up on the file (canceled, or the transfer failed): waits for writes in flight, closes it. */
  async abort(): Promise<void> {
    if (this.closed) return;
    this.parts = [];
    if (!this.failed) {
      const done = new Promise<unknown>((resolve) => {
        this.finished = resolve;
        this.rejectFinish = resolve;
      });
      this.worker.postMessage({ op: 'end' });
      await done;
    }
    await this.close();
  }

  private send(parts: Uint8Array[]): void {
    this.batched = 0;
    this.sentAt = Date.now();
    this.queued++;
    const list = parts.map((p) => [p.buffer, p.byteOffset, p.byteLength] as const);
    const buffers = [...new Set(parts.map((p) => p.buffer as ArrayBuffer))];
    try {
      this.worker.postMessage({ op: 'data', parts: list }, buffers);
    } catch {
      // A buffer that cannot move (a pooled one): send copies instead.
      const copies = parts.map((p) => new Uint8Array(p));
      this.worker.postMessage({ op: 'data', parts: copies.map((c) => [c.buffer, 0, c.byteLength]) }, copies.map((c) => c.buffer));
    }
  }

  private fail(err: Error): void {
    this.failed ??= err;
    for (const w of this.waiters.splice(0)) w();
    this.rejectFinish?.(err);
  }

  private async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.release();
    await this.handle.close();
  }
}
