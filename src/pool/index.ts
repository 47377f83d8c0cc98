/**
 * Pool mode (docs/pool.md): engines that share one PostgreSQL (ENGINE_DATABASE_URL or
 * --database-url) run workflows as one pool. This builds the database side of every store seam
 * (runs, workflows and their history, gates, cron state, notifications, rules), the pg-boss queue,
 * the membership heartbeat with its takeover of dead engines' runs, and the listener that keeps
 * each engine's mirrors and /events in step with the others. engine.ts hands each piece to the
 * capability whose interface it implements; without a database URL none of this loads.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Bus } from '../kernel/bus.js';
import type { Home } from '../kernel/home.js';
import { LIMITS } from '../kernel/limits.js';
import type { RunLedger, RunRecord } from '../kernel/runs.js';
import { serialQueue } from '../kernel/serial.js';
import type { WorkflowPool } from '../capabilities/workflows/types.js';
import { CHANNELS, PoolDb, type Notice } from './db.js';
import { createPoolGates } from './gates.js';
import { createMembers, type Member } from './members.js';
import { startQueue } from './queue.js';
import { PgRunStore, poolEvents } from './run-store.js';
import { migrate, SCHEMA } from './schema.js';
import { poolCronState, poolHistory, poolNotifications, poolRules } from './stores.js';
import { createTakeover } from './takeover.js';
import { PoolWorkflowBackend } from './workflow-backend.js';
import { createWorkflowPool } from './workflow-pool.js';

export interface PoolOptions {
  url: string;
  home: Home;
  /** Runs this engine executes at once; 0 serves only (`--no-worker`). */
  concurrency: number;
  version: string;
  log: (line: string) => void;
}

export interface PoolStatus {
  worker: string;
  boot: string;
  concurrency: number;
  servesOnly: boolean;
  engines: Array<Member & { self: boolean }>;
}

const WORKER_FILE = 'pool-worker.json';

/** This engine's stable worker id: made once per home (`<host>-<random>`), kept in the home. */
async function workerId(home: Home): Promise<string> {
  const stored = await home.readJson<{ worker?: unknown }>(WORKER_FILE, {}).catch(() => ({}) as { worker?: unknown });
  if (typeof stored.worker === 'string' && /^[A-Za-z0-9._-]{1,80}$/.test(stored.worker)) return stored.worker;
  const host = os.hostname().replace(/[^A-Za-z0-9.-]/g, '-').slice(0, 40) || 'engine';
  const worker = `${host}-${randomBytes(3).toString('hex')}`;
  await home.writeJson(WORKER_FILE, { worker });
  return worker;
}

export async function openPool(o: PoolOptions) {
  const worker = await workerId(o.home);
  const boot = randomBytes(8).toString('hex');
  const db = new PoolDb(o.url, o.log, `workbench-engine ${worker}`);
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  const queue = await startQueue({ url: o.url, applicationName: `workbench-engine ${worker} queue`, log: o.log });
  const runStore = new PgRunStore(db, boot, o.log);
  const workflows = new PoolWorkflowBackend(db);
  const reloads = { notifications: [] as Array<() => void>, settings: [] as Array<() => void> };
  let members: ReturnType<typeof createMembers> | undefined;
  const gates = createPoolGates({ db, boot, liveBoots: () => new Set([boot, ...(members?.list() ?? []).map((m) => m.boot)]), log: o.log });
  let url = '';
  let leaving: (() => Promise<void>) | undefined;
  let left: Promise<void> | undefined;

  /** Wires the pool into the engine's ledger and bus, joins, and starts listening. */
  async function join(ledger: RunLedger, bus: Bus): Promise<WorkflowPool> {
    const relay = poolEvents({ db, boot, relay: (e) => bus.relay(e), log: o.log });
    let pool: ReturnType<typeof createWorkflowPool> | undefined;
    // One read at a time, in the order the changes were announced: a run's older row read last
    // would show a finished run as running until its next change.
    const inOrder = serialQueue();
    const ingest = (runId?: string) => inOrder(async () => {
      const rows = await db.query<{ record: RunRecord }>(runId ? `SELECT record FROM ${SCHEMA}.runs WHERE run_id = $1` : `SELECT record FROM ${SCHEMA}.runs ORDER BY started_at`, runId ? [runId] : []);
      for (const r of rows) ledger.ingest(r.record);
    });
    const onChange = (payload: string) => {
      let n: { t?: string; id?: string };
      try {
        n = JSON.parse(payload);
      } catch {
        return;
      }
      const fail = (err: Error) => o.log(`pool: a change (${n.t}) was not taken in: ${err.message}`);
      if (n.t === 'runs' && n.id) {
        void ingest(n.id).catch(fail);
        pool?.changed(n.id);
      }
      else if (n.t === 'workflows') workflows.notify();
      else if (n.t === 'gates') void gates.changed().catch(fail);
      else if (n.t === 'notifications' || n.t === 'settings') for (const reload of reloads[n.t]) reload();
      else if (n.t === 'job') queue.wake();
      else if (n.t === 'stop' && n.id) ledger.get(n.id)?.stop();
    };
    const onNotice = (n: Notice) => (n.channel === CHANNELS.events ? relay(n.payload) : onChange(n.payload));
    // Whatever was announced while the listener was away is read again whole.
    const resync = () => {
      void ingest().catch((err) => o.log(`pool: runs not read again: ${err.message}`));
      workflows.notify();
      void gates.changed().catch(() => undefined);
      for (const reload of [...reloads.notifications, ...reloads.settings]) reload();
      queue.wake();
    };
    await db.listen(onNotice, resync);
    const takeover = createTakeover({ db, queue, store: runStore, ledger, log: o.log });
    leaving = async () => {
      await queue.pause();
      // With another worker alive, this engine's workflow runs go on there; alone, they stop as an
      // embedded engine's do (the engine's close stops what is still live after this).
      if (members?.list().some((m) => m.boot !== boot && !m.servesOnly)) {
        const runs = ledger.live().filter((r) => r.record.workflowId);
        for (const run of runs) run.handOver();
        await runStore.flush();
        await takeover.handOver(boot, runs.map((r) => r.id)).catch((err) => o.log(`pool: runs not handed on: ${(err as Error).message}`));
        // Their nodes wind down here (processes killed, waits cut) before the engine closes under them.
        await pool?.settled(LIMITS.shutdownGraceMs);
      }
      await members?.stop();
    };
    members = createMembers({
      db,
      self: { boot, worker, url: () => url, servesOnly: o.concurrency === 0, concurrency: o.concurrency, version: o.version },
      log: o.log,
      onBeat: () => takeover.reap(),
    });
    await members.start();
    const joined = createWorkflowPool({ db, boot, ledger, store: runStore, queue, concurrency: o.concurrency, parts: { workflows, cron: poolCronState(db), gates } });
    pool = joined;
    ledger.elsewhere = { stop: (runId) => joined.stop(runId) };
    return joined;
  }

  function leave(): Promise<void> {
    left ??= leaving?.() ?? Promise.resolve();
    return left;
  }

  return {
    worker,
    boot,
    runStore,
    join,
    /** The address this engine serves on, for the pool's list of engines (known once listening). */
    setUrl(value: string) {
      url = value;
    },
    notifications: poolNotifications(db, (reload) => reloads.notifications.push(reload)),
    rules: poolRules(db, (reload) => reloads.settings.push(reload)),
    history: poolHistory(db),
    status(): PoolStatus {
      return { worker, boot, concurrency: o.concurrency, servesOnly: o.concurrency === 0, engines: (members?.list() ?? []).map((m) => ({ ...m, self: m.boot === boot })) };
    },
    /**
     * The first step of a clean stop, before the engine stops its runs: take no more runs, hand the
     * workflow runs executing here to the pool's other workers (docs/pool.md), leave the pool.
     */
    leave,
    async close(): Promise<void> {
      await leave();
      await queue.stop();
      await runStore.close();
      await db.close();
    },
  };
}

export type Pool = Awaited<ReturnType<typeof openPool>>;
