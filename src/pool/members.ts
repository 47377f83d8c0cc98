/**
 * Who is in the pool: one row per running engine (`boot`, a new id each start; `worker`, the
 * stable id of the engine, kept in its home), refreshed every LIMITS.poolHeartbeatMs. An engine
 * silent for LIMITS.poolEngineDeadMs is dead: its row goes and `onDead` hands its runs to the
 * living (src/pool/takeover.ts). Times are the database's own clock, so machines' clocks may differ.
 */
import type { PoolDb } from './db.js';
import { SCHEMA } from './schema.js';
import { LIMITS } from '../kernel/limits.js';

export interface Member {
  worker: string;
  boot: string;
  url: string;
  servesOnly: boolean;
  concurrency: number;
  version: string;
  startedAt: string;
  seenAt: string;
}

export const aliveSql = `seen_at > now() - make_interval(secs => ${LIMITS.poolEngineDeadMs / 1000})`;

export function createMembers(deps: { db: PoolDb; self: Omit<Member, 'startedAt' | 'seenAt' | 'url'> & { url: () => string }; log: (line: string) => void; onBeat: () => Promise<void> }) {
  const { db, self } = deps;
  let timer: NodeJS.Timeout | undefined;
  let members: Member[] = [];
  let stopped = false;

  const register = () =>
    db.query(
      `INSERT INTO ${SCHEMA}.engines (boot, worker, url, serves_only, concurrency, version) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (boot) DO UPDATE SET seen_at = now()`,
      [self.boot, self.worker, self.url(), self.servesOnly, self.concurrency, self.version],
    );

  async function beat(): Promise<void> {
    const seen = await db.query(`UPDATE ${SCHEMA}.engines SET seen_at = now(), url = $2 WHERE boot = $1 RETURNING boot`, [self.boot, self.url()]);
    // Declared dead while alive (the database unreachable past the limit): its runs were handed on; it joins again.
    if (!seen.length) {
      deps.log(`pool: this engine (${self.worker}) was silent past ${LIMITS.poolEngineDeadMs} ms and counted out; joining again`);
      await register();
    }
    await db.query(`DELETE FROM ${SCHEMA}.engines WHERE NOT (${aliveSql})`);
    members = (
      await db.query<{ boot: string; worker: string; url: string; serves_only: boolean; concurrency: number; version: string; started_at: Date; seen_at: Date }>(
        `SELECT * FROM ${SCHEMA}.engines ORDER BY started_at`,
      )
    ).map((r) => ({ boot: r.boot, worker: r.worker, url: r.url, servesOnly: r.serves_only, concurrency: r.concurrency, version: r.version, startedAt: r.started_at.toISOString(), seenAt: r.seen_at.toISOString() }));
    await deps.onBeat();
  }

  const loop = () => {
    if (stopped) return;
    timer = setTimeout(() => void beat().catch((err) => deps.log(`pool: heartbeat failed: ${(err as Error).message}`)).finally(loop), LIMITS.poolHeartbeatMs);
    timer.unref?.();
  };

  return {
    async start(): Promise<void> {
      await register();
      await beat();
      loop();
    },
    /** The live engines as of the last heartbeat. */
    list: (): Member[] => members,
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      // A clean stop leaves at once: nothing waits the dead limit for it.
      await db.query(`DELETE FROM ${SCHEMA}.engines WHERE boot = $1`, [self.boot]).catch(() => undefined);
    },
  };
}

export type Members = ReturnType<typeof createMembers>;
