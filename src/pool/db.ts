/**
 * The pool's connection to its PostgreSQL: a small `pg` pool for queries and transactions, and one
 * dedicated client that LISTENs (row changes announced by triggers, run events, stop requests).
 * The listener reconnects with backoff; after a reconnect every mirror reloads, since what was
 * announced while it was away is lost (NOTIFY is not queued for absent listeners).
 */
import type pg from 'pg';
import { lazyRequire } from '../kernel/lazy-require.js';
import { LIMITS } from '../kernel/limits.js';
import { inTransaction } from '../kernel/pg-transaction.js';

const Pg = lazyRequire<typeof pg>('pg');

/** The channels of the pool: row changes (`{t: table, id}`) and run events (`<boot> <line>`). */
export const CHANNELS = { changes: 'engine_pool', events: 'engine_pool_events' } as const;

export interface Notice {
  channel: string;
  payload: string;
}

export class PoolDb {
  readonly pool: pg.Pool;
  private listener: pg.Client | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly log: (line: string) => void,
    applicationName: string,
  ) {
    this.pool = new (Pg().Pool)({ connectionString: url, max: LIMITS.poolDbConnections, application_name: applicationName, connectionTimeoutMillis: LIMITS.poolDbConnectMs });
    // An idle client whose server went away must not crash the engine; the next query reconnects.
    this.pool.on('error', (err) => this.log(`pool: a database connection failed: ${err.message}`));
  }

  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.pool.query(sql, params)).rows as T[];
  }

  /** Runs `work` in one transaction (rolled back when it throws). */
  async tx<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, 'BEGIN', work);
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  /**
   * LISTENs on every channel; `onNotice` gets each notification, `onReconnect` is called after the
   * connection came back (not on the first connect). Resolves once listening.
   */
  async listen(onNotice: (n: Notice) => void, onReconnect: () => void): Promise<void> {
    let delay = 250;
    const connect = async (again: boolean): Promise<void> => {
      const client = new (Pg().Client)({ connectionString: this.url, connectionTimeoutMillis: LIMITS.poolDbConnectMs });
      const retryLater = (err: Error) => {
        if (this.closed) return;
        this.log(`pool: listening failed (${err.message}); trying again in ${delay} ms`);
        this.retry = setTimeout(() => void connect(true).catch(retryLater), delay);
        delay = Math.min(delay * 2, LIMITS.poolListenRetryMaxMs);
      };
      client.on('error', (err) => {
        if (this.listener !== client) return;
        this.listener = undefined;
        client.end().catch(() => undefined);
        retryLater(err);
      });
      client.on('notification', (n) => onNotice({ channel: n.channel, payload: n.payload ?? '' }));
      await client.connect();
      for (const channel of Object.values(CHANNELS)) await client.query(`LISTEN ${channel}`);
      if (this.closed) return void (await client.end());
      this.listener = client;
      delay = 250;
      if (again) onReconnect();
    };
    await connect(false);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }
}
