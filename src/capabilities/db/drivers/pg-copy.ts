/**
 * `COPY (<query>) TO STDOUT WITH (FORMAT csv, HEADER)` through a pg client, as a pull-based stream
 * of the server's own CSV bytes: the fastest honest CSV export (what `psql \copy` does). pg has no
 * copy-out support of its own, so this is a submittable (the interface pg-copy-streams uses); the
 * socket is paused while the consumer is behind, so memory stays bounded.
 */
import type pg from 'pg';

const HIGH_WATER = 8 * 1024 * 1024;
/**
 * The server sends one CopyData message per row (~50 bytes): they are copied into chunks of this
 * size, so the socket gets few large writes and no row needs a Buffer of its own.
 */
const CHUNK = 256 * 1024;

interface Connection {
  query(text: string): void;
  stream: { pause(): void; resume(): void };
}

export function copyOut(client: pg.PoolClient, text: string): AsyncIterable<Buffer> & { rows(): number } {
  let rows = 0;
  const queue: Buffer[] = [];
  let queued = 0;
  let current = Buffer.allocUnsafe(CHUNK);
  let used = 0;
  const flush = () => {
    if (!used) return;
    queue.push(current.subarray(0, used));
    queued += used;
    current = Buffer.allocUnsafe(CHUNK);
    used = 0;
  };
  let finished = false;
  let failed: Error | undefined;
  let wake: (() => void) | undefined;
  let conn: Connection | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const submittable = {
    submit(connection: Connection) {
      conn = connection;
      connection.query(text);
    },
    handleCopyData(msg: { chunk: Buffer }) {
      // Copied: the parser reuses its buffer for later messages, so a slice kept past this call could change.
      const bytes = msg.chunk;
      if (used + bytes.length > CHUNK) flush();
      if (bytes.length > CHUNK) {
        queue.push(Buffer.from(bytes));
        queued += bytes.length;
      } else {
        bytes.copy(current, used);
        used += bytes.length;
      }
      if (!queue.length) return;
      if (queued > HIGH_WATER) conn?.stream.pause();
      notify();
    },
    handleError(err: Error) {
      failed = err;
      notify();
    },
    handleReadyForQuery() {
      flush();
      finished = true;
      notify();
    },
    handleCommandComplete(msg: { text?: string }) {
      rows = Number(/^COPY (\d+)/.exec(msg.text ?? '')?.[1] ?? 0);
    },
    handleRowDescription() {},
    handleDataRow() {},
    handleEmptyQuery() {},
    handlePortalSuspended() {},
    handleCopyInResponse() {
      failed = new Error('the export query asked for input');
    },
  };
  (client as unknown as { query(q: unknown): void }).query(submittable);
  return {
    rows: () => rows,
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (queue.length) {
          // Full chunks one write each: a consumer that fell behind gets them one after another.
          const chunk = queue.shift()!;
          queued -= chunk.length;
          if (queued <= HIGH_WATER / 2) conn?.stream.resume();
          yield chunk;
          continue;
        }
        if (failed) throw failed;
        if (finished) return;
        await new Promise<void>((r) => (wake = r));
      }
    },
  };
}
