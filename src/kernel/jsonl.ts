/**
 * Append-only JSONL files: one open handle, batched writes, every line whole.
 * A batch is one write() call of complete lines, so a kill between batches loses at most the
 * unflushed tail and never leaves a torn line; readers still skip a torn last line defensively.
 */
import { close, createReadStream, mkdirSync, open, openSync, promises as fs, readFileSync, write, writeSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const openFd = promisify(open);
const closeFd = promisify(close);

/**
 * Folders already made by an appender: a run's log opens a file per run in the same folder, and a
 * recursive mkdir per file is a syscall walk the event loop pays for nothing.
 */
const madeDirs = new Set<string>();

const writeFd = async (fd: number, buf: Buffer, offset: number, length: number): Promise<number> =>
  (await promisify(write)(fd, buf, offset, length)).bytesWritten;

/** write(2) may write less than asked (a signal, a full disk); keep going until the chunk is whole. */
async function writeAll(fd: number, text: string): Promise<void> {
  const buf = Buffer.from(text);
  let off = 0;
  while (off < buf.length) off += await writeFd(fd, buf, off, buf.length - off);
}

function writeAllSync(fd: number, text: string): void {
  const buf = Buffer.from(text);
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}

/**
 * Cuts a torn last line (a kill in the middle of a write) so the next append starts on a line of
 * its own and every line of the file stays whole. Returns true when something was cut.
 */
export async function repairTail(file: string): Promise<boolean> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r+');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  try {
    const { size } = await handle.stat();
    if (size === 0) return false;
    // Scan backwards in blocks for the last newline.
    const block = 64 * 1024;
    let end = size;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    if (last[0] === 0x0a) return false;
    while (end > 0) {
      const start = Math.max(0, end - block);
      const buf = Buffer.alloc(end - start);
      await handle.read(buf, 0, buf.length, start);
      const nl = buf.lastIndexOf(0x0a);
      if (nl !== -1) {
        await handle.truncate(start + nl + 1);
        return true;
      }
      end = start;
    }
    await handle.truncate(0);
    return true;
  } finally {
    await handle.close();
  }
}

export class JsonlAppender {
  private fd: number | undefined;
  private pending: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private inFlight = 0;

  constructor(
    readonly file: string,
    private readonly flushMs: number,
  ) {}

  append(value: unknown): void {
    this.appendJson(JSON.stringify(value));
  }

  /** Appends a value already serialized (the bus serializes each event once for every listener). */
  appendJson(json: string): void {
    this.pending.push(json + '\n');
    if (!this.timer) this.timer = setTimeout(() => void this.flush(), this.flushMs);
  }

  /** Writes everything pending; resolves once it is on disk. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending.length) return this.writing;
    const chunk = this.pending.join('');
    this.pending = [];
    this.inFlight++;
    this.writing = this.writing
      .then(async () => {
        await writeAll(await this.open(), chunk);
      })
      .catch((err) => {
        process.emitWarning(`could not append to ${this.file}: ${(err as Error).message}`);
      })
      .finally(() => this.inFlight--);
    return this.writing;
  }

  /**
   * Writes everything pending now, for a line something is about to depend on (a workflow node's
   * completion): one synchronous write(2) when no batch is in flight, so the line is in the file
   * (surviving a kill -9) before the caller goes on; otherwise queued behind the batch in order.
   */
  flushNow(): Promise<void> {
    if (this.inFlight > 0 || !this.pending.length) return this.flush();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const chunk = this.pending.join('');
    this.pending = [];
    try {
      if (this.fd === undefined) {
        mkdirSync(path.dirname(this.file), { recursive: true });
        this.fd = openSync(this.file, 'a');
      }
      writeAllSync(this.fd, chunk);
    } catch (err) {
      process.emitWarning(`could not append to ${this.file}: ${(err as Error).message}`);
    }
    return Promise.resolve();
  }

  /** Synchronous last-chance flush for process exit. */
  flushSync(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending.length) return;
    const chunk = this.pending.join('');
    this.pending = [];
    try {
      if (this.fd === undefined) this.fd = openSync(this.file, 'a');
      writeAllSync(this.fd, chunk);
    } catch {
      // Nothing more can be done at exit.
    }
  }

  async close(): Promise<void> {
    await this.flush();
    await this.writing;
    if (this.fd !== undefined) {
      const fd = this.fd;
      this.fd = undefined;
      // Off the event loop: a busy loop (a stream in flight) should not wait on close(2).
      await closeFd(fd);
    }
  }

  /** Opens the file off the event loop (open(2) with O_CREAT in a big folder is not free). */
  private async open(): Promise<number> {
    if (this.fd === undefined) {
      const dir = path.dirname(this.file);
      if (!madeDirs.has(dir)) {
        await fs.mkdir(dir, { recursive: true });
        madeDirs.add(dir);
      }
      try {
        this.fd = await openFd(this.file, 'a');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        // The folder went away since it was made (a home removed and made again): make it once more.
        madeDirs.delete(dir);
        await fs.mkdir(dir, { recursive: true });
        this.fd = await openFd(this.file, 'a');
      }
    }
    return this.fd;
  }
}

/** Parses a JSONL text, skipping blank and torn lines. */
export function parseJsonl<T = unknown>(text: string): T[] {
  const out: T[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      // A torn last line from a crash is skipped, never fatal.
    }
  }
  return out;
}

export async function readJsonl<T = unknown>(file: string): Promise<T[]> {
  return parseJsonl<T>(await readText(file));
}

/** A JSONL file's text; a missing file is empty. */
export async function readText(file: string): Promise<string> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

/** The same, synchronously: for a read that must answer in the caller's tick (RunLedger.settle). */
export function readTextSync(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

/**
 * The non-blank lines of a file, a batch per 64 KB read, as the caller asks for them: a long log is
 * never in memory whole (and a batch, not a line, per await keeps the promise cost off each line).
 * A missing file has no lines.
 */
export async function* readLineBatches(file: string): AsyncGenerator<string[]> {
  let rest = '';
  try {
    for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 })) {
      const lines = (rest + (chunk as string)).split('\n');
      rest = lines.pop()!;
      const batch = lines.filter((line) => line.trim());
      if (batch.length) yield batch;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (rest.trim()) yield [rest];
}
