/**
 * Forwards an upstream answer to the caller with as few writes as the bytes allow. The HTTP parser
 * hands over one chunk per upstream write (one per SSE frame, often a few dozen per socket read);
 * writing each on its own costs a syscall and a chunk header apiece, and the caller then parses as
 * many pieces. Here the chunks of one read are gathered and written at the end of that same tick
 * (process.nextTick, before any timer or I/O), as one buffer: no added wait, fewer writes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Bytes a caller may have waiting in the engine before the upstream read pauses. */
const PAUSE_AT = 256 * 1024;

export interface RelayOptions {
  /** Sees each gathered buffer; returns what to forward (undefined or empty: nothing yet). */
  transform?: (chunk: Buffer) => Buffer | string | undefined;
  /** The answer ended: the last bytes to send, if any, before the response ends. */
  end?: () => Buffer | string | undefined;
  /** After the response was ended. */
  done: () => void;
  /** The upstream failed mid-answer. */
  error: (err: Error) => void;
}

export function relay(from: IncomingMessage, to: ServerResponse, opts: RelayOptions): void {
  let batch: Buffer[] = [];
  let size = 0;
  let scheduled = true;
  const flush = () => {
    scheduled = false;
    if (!batch.length) {
      // Nothing came with the headers: send them now, so the caller learns the status at once.
      if (!to.headersSent) to.flushHeaders();
      return;
    }
    const gathered = batch.length === 1 ? batch[0] : Buffer.concat(batch, size);
    batch = [];
    size = 0;
    const out = opts.transform ? opts.transform(gathered) : gathered;
    // Backpressure: a slow caller slows the upstream read instead of filling the engine's memory. Past
    // the response's own 16 KB mark, up to PAUSE_AT may wait in memory: one socket read is already 64 KB,
    // and pausing at each (a stop and a restart of the upstream read) cost more than the bytes moved.
    if (out?.length && !to.write(out) && to.writableLength > PAUSE_AT && !to.destroyed) {
      from.pause();
      to.once('drain', () => from.resume());
    }
  };
  // The headers go with the first body bytes when they came in the same read, alone otherwise.
  process.nextTick(flush);
  from.on('data', (chunk: Buffer) => {
    batch.push(chunk);
    size += chunk.length;
    if (!scheduled) {
      scheduled = true;
      process.nextTick(flush);
    }
  });
  from.on('end', () => {
    if (batch.length) flush();
    const last = opts.end?.();
    if (last?.length) to.end(last);
    else to.end();
    opts.done();
  });
  from.on('error', opts.error);
}
