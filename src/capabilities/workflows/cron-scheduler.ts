/**
 * Arms one timer per cron trigger on the engine clock. A fire while the workflow still runs is
 * skipped (`trigger.skipped`). At start, fires missed while the engine was down are counted from
 * the last fire (or the time the trigger was first armed), kept in `<home>/cron-state.json` (a
 * pool: its database), and reported once as `trigger.skipped {missed}`; a trigger with
 * `catchUp: true` runs once instead. In a pool every engine arms the same timers and each fire names
 * its tick, so the pool starts one run per tick (src/pool/workflow-pool.ts).
 */
import type { Emit } from '../../kernel/bus.js';
import { atEach, type Clock } from './clock.js';
import { parseCron, type CronSchedule } from './cron.js';
import type { CronStateStore, WorkflowDocument } from './types.js';


export interface CronDeps {
  state: CronStateStore;
  clock: Clock;
  emit: Emit;
  log: (line: string) => void;
  /** Starts a run for the fire at `tick` (epoch ms); 'running' when the workflow is already running (the fire is skipped). */
  fire(workflowId: string, nodeId: string, payload: Record<string, unknown>, tick: number): Promise<'started' | 'running' | 'refused'>;
}

interface Armed {
  key: string;
  workflowId: string;
  nodeId: string;
  schedule: CronSchedule;
  stop?: () => void;
  catchUp: boolean;
}

export function createCronScheduler(deps: CronDeps) {
  const armed = new Map<string, Armed>();
  let last: Record<string, number> = {};
  let saving: Promise<void> = Promise.resolve();
  let closed = false;

  const save = () => (saving = saving.then(() => deps.state.save(last)).catch((err) => deps.log(`cron: state not saved: ${(err as Error).message}`)));

  async function init(docs: WorkflowDocument[]): Promise<void> {
    try {
      last = await deps.state.load();
    } catch {
      last = {};
    }
    sync(docs, true);
    await save();
  }

  /** Re-arms every cron trigger of the given documents (others are disarmed). */
  function sync(docs: WorkflowDocument[], startup = false): void {
    const wanted = new Map<string, { doc: WorkflowDocument; nodeId: string; expr: string; tz?: string; catchUp: boolean }>();
    for (const doc of docs) {
      if (doc.disabled) continue;
      for (const n of doc.nodes) {
        const c = n.config ?? {};
        if (n.type !== 'trigger.cron' || c.paused === true) continue;
        wanted.set(`${doc.id}:${n.id}`, { doc, nodeId: n.id, expr: String(c.expr), tz: typeof c.timezone === 'string' ? c.timezone : undefined, catchUp: c.catchUp === true });
      }
    }
    for (const [key, a] of armed) {
      if (!wanted.has(key)) {
        a.stop?.();
        armed.delete(key);
      }
    }
    const now = deps.clock.now();
    for (const [key, w] of wanted) {
      const sig = `${w.expr}\u0000${w.tz ?? ''}\u0000${w.catchUp}`;
      const existing = armed.get(key);
      if (existing && (existing as Armed & { sig?: string }).sig === sig) continue;
      existing?.stop?.();
      let schedule: CronSchedule;
      try {
        schedule = parseCron(w.expr, w.tz);
      } catch (err) {
        deps.log(`cron: ${key} not armed: ${(err as Error).message}`);
        continue;
      }
      const a: Armed & { sig?: string } = { key, workflowId: w.doc.id, nodeId: w.nodeId, schedule, catchUp: w.catchUp, sig };
      armed.set(key, a);
      if (startup && last[key] !== undefined) {
        const missed = schedule.countBetween(last[key], now, 100_000);
        if (missed > 0) {
          if (a.catchUp) void deps.fire(a.workflowId, a.nodeId, { firedAt: new Date(now).toISOString(), catchUp: true, missed }, last[key]);
          else deps.emit('trigger.skipped', { workflowId: a.workflowId, nodeId: a.nodeId, reason: 'missed while the engine was not running', missed });
        }
      }
      if (last[key] === undefined || startup) last[key] = now;
      arm(a, now);
    }
    if (!startup) void save();
  }

  function arm(a: Armed, from: number): void {
    if (!closed) a.stop = atEach(deps.clock, (after) => a.schedule.next(after), from, (at) => void onFire(a, at));
  }

  async function onFire(a: Armed, at: number): Promise<void> {
    if (armed.get(a.key) !== a || closed) return;
    last[a.key] = at;
    void save();
    const outcome = await deps.fire(a.workflowId, a.nodeId, { firedAt: new Date(at).toISOString() }, at);
    if (outcome === 'running') deps.emit('trigger.skipped', { workflowId: a.workflowId, nodeId: a.nodeId, reason: 'the workflow is still running', firedAt: new Date(at).toISOString() });
  }

  async function close(): Promise<void> {
    closed = true;
    for (const a of armed.values()) a.stop?.();
    armed.clear();
    await saving;
  }

  /** The next fire of an armed trigger (`<workflowId>:<nodeId>`), or undefined when it is not armed or never fires again. */
  const next = (key: string): number | undefined => armed.get(key)?.schedule.next(deps.clock.now());

  return { init, sync, close, armed: () => [...armed.keys()], next };
}
