/**
 * Append-only JSONL files: one open handle, batched writes, every line whole.
 * A batch is one write() call of complete lines, so a kill between batches loses at most the
 * unflushed tail and never leaves a torn line; readers still skip a torn last line defensively.
 */
import { closeSync, openSync, promises as fs, write, writeSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const writeFd = promisify(write) as (fd: number, text: string) => Promise<unknown>;

export class JsonlAppender {
  private fd: number | undefined;
  private pending: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly flushMs: number,
  ) {}

  append(value: unknown): void {
    this.pending.push(JSON.stringify(value) + '\n');
    if (!this.timer) this.timer = setTimeout(() => void this.flush(), this.flushMs);
  }

  /** Writes everything pending; resolves once it is on disk. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending.length) return this.writing;
    const chunk = this.pending.join('');
    this.pending = [];
    this.writing = this.writing.then(async () => {
      await writeFd(await this.open(), chunk);
    }).catch((err) => {
      process.emitWarning(`could not append to ${this.file}: ${(err as Error).message}`);
    });
    return this.writing;
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
      writeSync(this.fd, chunk);
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
      closeSync(fd);
    }
  }

  closeSync(): void {
    this.flushSync();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private async open(): Promise<number> {
    if (this.fd === undefined) {
      await fs.mkdir(path.dirname(this.file), { recursive: true });
      this.fd = openSync(this.file, 'a');
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
  try {
    return parseJsonl<T>(await fs.readFile(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
