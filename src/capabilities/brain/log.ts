/**
 * `<home>/brain/graph.jsonl`, the brain's truth: one node or edge a line, appended as the graph
 * changes, readable and diffable like the rest of the home. The index (store.ts) is made from it and
 * records how far it reaches; this file says how long the log is, what its bytes before a point
 * are (the index's `mark`), and reads it from a point on, a batch at a time.
 */
import { closeSync, createReadStream, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import type { GraphLine } from './store.js';

/** Bytes of the log kept as the index's mark: enough to tell a replaced or cut log from the one indexed. */
const MARK_BYTES = 64;

export class GraphLog {
  private fd: number | undefined;

  constructor(readonly file: string) {}

  private handle(): number {
    return (this.fd ??= openSync(this.file, 'a+'));
  }

  size(): number {
    return fstatSync(this.handle()).size;
  }

  /** The log's last bytes before `offset`, in hex (the index stores it to recognise its log). */
  markAt(offset: number): string {
    const start = Math.max(0, offset - MARK_BYTES);
    const buf = Buffer.alloc(offset - start);
    const read = buf.length ? readSync(this.handle(), buf, 0, buf.length, start) : 0;
    return buf.subarray(0, read).toString('hex');
  }

  /**
   * Appends whole lines in one write; answers the log's new length and its mark. A write that fails
   * part way (a full disk) is cut back off, so the lines kept for the next write do not follow a torn one.
   */
  append(lines: GraphLine[]): { offset: number; mark: string } {
    const buf = Buffer.from(lines.map((l) => JSON.stringify(l) + '\n').join(''));
    const fd = this.handle();
    const start = this.size();
    let off = 0;
    try {
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    } catch (err) {
      try {
        ftruncateSync(fd, start);
      } catch {
        // left torn: repairTail cuts it at the next open
      }
      throw err;
    }
    const offset = start + buf.length;
    return { offset, mark: buf.length >= MARK_BYTES ? buf.subarray(buf.length - MARK_BYTES).toString('hex') : this.markAt(offset) };
  }

  /** The lines from `start` to `end` (both at line starts), parsed, a batch per read; a torn or foreign line is skipped. */
  async *read(start: number, end: number): AsyncGenerator<GraphLine[]> {
    if (end <= start) return;
    let rest = '';
    for await (const chunk of createReadStream(this.file, { encoding: 'utf8', start, end: end - 1, highWaterMark: 256 * 1024 })) {
      const lines = (rest + (chunk as string)).split('\n');
      rest = lines.pop()!;
      const batch: GraphLine[] = [];
      for (const line of lines) {
        if (!line) continue;
        try {
          const v = JSON.parse(line) as GraphLine;
          if (v && typeof v === 'object' && (v.n || v.e)) batch.push(v);
        } catch {
          // a line torn by a kill: skipped (repairTail cuts it before appends resume)
        }
      }
      if (batch.length) yield batch;
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
