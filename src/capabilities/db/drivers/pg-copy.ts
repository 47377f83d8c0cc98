/**
 * `COPY (<query>) TO STDOUT WITH (FORMAT csv, HEADER)` through a pg client, as a pull-based stream
 * of the server's own CSV bytes: the fastest honest CSV export (what `psql \copy` does). pg has no
 * copy-out support of its own, so this is a submittable (the interface pg-copy-streams uses); the
 * socket is paused while the consumer is behind, so memory stays bounded.
 */
import type pg from 'pg';

const HIGH_WATER = 8 * 1024 * 1024;

interface Connection {
  query(text: string): void;
  stream: { pause(): void; resume(): void };
}

export function copyOut(client: pg.PoolClient, text: string): AsyncIterable<Buffer> & { rows(): number } {
  let rows = 0;
  const queue: Buffer[] = [];
  let queued = 0;
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
      // A copy: the parser reuses its buffer for later messages, so a slice kept past this call could change.
      queue.push(Buffer.from(msg.chunk));
      queued += msg.chunk.length;
      if (queued > HIGH_WATER) conn?.stream.pause();
      notify();
    },
    handleError(err: Error) {
      failed = err;
      notify();
    },
    handleReadyForQuery() {
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
          // The server sends one message per row: hand them on together, not one by one.
          const chunk = queue.length === 1 ? queue[0] : Buffer.concat(queue);
          queue.length = 0;
          queued = 0;
          conn?.stream.resume();
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
