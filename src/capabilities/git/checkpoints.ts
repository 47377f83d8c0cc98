/**
 * Checkpoints: snapshots of every root a run can touch (and the agent memory folder) in shadow
 * repositories, a revert that is itself undoable, the diff of what a run changed, and pruning.
 * The list of checkpoints is `checkpoints/index.json` in the home (written atomically); each
 * checkpoint is also a ref `refs/checkpoints/<sha>` in its root's shadow repository.
 */
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import type { Emit } from '../../kernel/bus.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import type { Fence } from '../../kernel/fence.js';
import type { Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import type { RunLedger } from '../../kernel/runs.js';
import { boundedDiff } from './diff.js';
import { realOr } from './repo.js';
import { Shadow, type ShadowRoot } from './shadow.js';
import type { Checkpoint, CheckpointsApi, DiffAnswer, RevertAnswer, RevertRunAnswer, SnapshotRequest } from './types.js';

export const MEMORY_ROOT = '@memory';

export interface CheckpointDeps {
  home: Home;
  fence: Fence;
  runs: RunLedger;
  emit: Emit;
  /** The agent memory folder (`<home>/memory`): memory tool writes show in a run's changes. */
  memoryDir: string;
  log?: (line: string) => void;
  /** The pruning policy (default: LIMITS.checkpointsKept per root, LIMITS.checkpointMaxAgeMs). */
  policy?: { kept: number; maxAgeMs: number };
  /** The clock (tests move it to age checkpoints). */
  now?: () => number;
}

interface IndexFile {
  version: 1;
  checkpoints: Checkpoint[];
}

export interface CheckpointService extends CheckpointsApi {
  /** Loads the list of checkpoints (once, at start). */
  init(): Promise<void>;
  /** The diff from a checkpoint to its root as it is now (what a revert to it would undo). */
  diffSince(sha: string): Promise<DiffAnswer & { root: string }>;
  close(): Promise<void>;
}

export function createCheckpoints(deps: CheckpointDeps): CheckpointService {
  const dir = deps.home.path('checkpoints');
  const indexFile = path.join(dir, 'index.json');
  const shadows = new Map<string, Shadow>();
  let list: Checkpoint[] | undefined;
  const firstWrite = new Map<string, Promise<void>>();
  /** The tree of each pending checkpoint, so comparing a root with it costs no lookup (a restart looks it up). */
  const pendingTrees = new Map<string, string>();
  const closing = new AbortController();
  const policy = deps.policy ?? { kept: LIMITS.checkpointsKept, maxAgeMs: LIMITS.checkpointMaxAgeMs };
  const now = deps.now ?? Date.now;
  const homeReal = realOr(deps.home.root);

  async function load(): Promise<Checkpoint[]> {
    if (!list) list = (await deps.home.readJson<IndexFile>(indexFile, { version: 1, checkpoints: [] })).checkpoints;
    return list;
  }
  const save = () => deps.home.writeJson(indexFile, { version: 1, checkpoints: list ?? [] } satisfies IndexFile);

  /** Every root a checkpoint may cover now: the workspace, the mounts, and the memory folder. */
  function shadowRoots(): ShadowRoot[] {
    const roots = deps.fence.roots();
    const out: ShadowRoot[] = roots.map((r) => {
      // A mount may hold the engine home, or another root may lie inside this one: neither is part of
      // this root's checkpoints (the other root has its own).
      const inner = [...(r.kind === 'mount' ? [homeReal] : []), ...roots.filter((o) => o !== r).map((o) => o.path)];
      const excludes = inner.map((p) => path.relative(r.path, p)).filter((rel) => rel && !rel.startsWith('..') && !path.isAbsolute(rel));
      return { name: r.name, path: r.path, prefix: r.kind === 'workspace' ? '' : `${r.name}/`, excludes: excludes.map((rel) => `/${rel.split(path.sep).join('/')}/`) };
    });
    out.push({ name: MEMORY_ROOT, path: deps.memoryDir, prefix: `${MEMORY_ROOT}/`, excludes: ['/.snapshots/'] });
    return out;
  }

  function shadowFor(root: ShadowRoot): Shadow {
    let s = shadows.get(root.path);
    if (!s || s.root.name !== root.name) shadows.set(root.path, (s = new Shadow(path.join(dir, 'shadows'), root, deps.home.root)));
    return s;
  }

  /** The shadow of a checkpoint's root, if that root (by its folder) is still a root. */
  function shadowOf(cp: Checkpoint): Shadow {
    const root = shadowRoots().find((r) => r.path === cp.rootPath);
    if (!root) throw conflict(`checkpoint ${cp.sha.slice(0, 12)} belongs to "${cp.root}" (${cp.rootPath}), which is no longer mounted; mount that folder again to use it`);
    return shadowFor(root);
  }

  /** Work on one shadow runs one at a time (snapshot, peek, revert). */
  const serial = <T>(shadow: Shadow, work: () => Promise<T>) => deps.home.serialize(shadow.gitDir, work);

  /** The checkpoints people see: not the pending ones (taken before a write that may change nothing). */
  const shown = async () => (await load()).filter((c) => !c.pending);

  async function find(sha: string): Promise<Checkpoint> {
    if (typeof sha !== 'string' || !/^[0-9a-f]{7,64}$/.test(sha)) throw badRequest('send {"sha": "<checkpoint sha>"} (7 to 64 hex digits); checkpoint.created events and GET /api/git/checkpoints carry them');
    const all = (await shown()).filter((c) => c.sha.startsWith(sha));
    if (!all.length) throw notFound(`no checkpoint ${sha}; GET /api/git/checkpoints lists the kept ones`);
    if (all.length > 1) throw badRequest(`"${sha}" matches ${all.length} checkpoints; send more of the sha`);
    return all[0];
  }

  async function snapshotRoot(root: ShadowRoot, req: SnapshotRequest, pending = false): Promise<Checkpoint> {
    const shadow = shadowFor(root);
    const cp = await serial(shadow, async () => {
      const tree = await shadow.currentTree();
      const message = `checkpoint ${root.name}: ${req.reason}\n\nrun: ${req.runId}\n${req.nodeId ? `node: ${req.nodeId}\n` : ''}`;
      const sha = await shadow.commit(tree, message);
      if (pending) pendingTrees.set(sha, tree);
      return { sha, root: root.name, rootPath: root.path, runId: req.runId, ...(req.nodeId ? { nodeId: req.nodeId } : {}), reason: req.reason, ts: now(), ...(pending ? { pending } : {}) } as Checkpoint;
    });
    (await load()).push(cp);
    return cp;
  }

  const announce = (cp: Checkpoint) => deps.emit('checkpoint.created', { runId: cp.runId, sha: cp.sha, root: cp.root, ...(cp.nodeId ? { nodeId: cp.nodeId } : {}) });

  const snapshot = (req: SnapshotRequest) => take(req, false);

  /** Snapshots the roots asked for (all by default); `pending`: kept back until a root changes (beforeWrite). */
  async function take(req: SnapshotRequest, pending: boolean): Promise<Array<{ root: string; sha: string }>> {
    if (!req?.runId) throw badRequest('a checkpoint belongs to a run: send runId');
    const all = shadowRoots();
    const wanted = req.roots ? all.filter((r) => req.roots!.includes(r.name)) : all;
    if (req.roots) for (const name of req.roots) if (!all.some((r) => r.name === name)) throw notFound(`no root "${name}" to checkpoint; use workspace, a mount name or ${MEMORY_ROOT}`);
    const made: Checkpoint[] = [];
    for (const root of wanted) {
      // A mount whose folder vanished has nothing to snapshot.
      if (root.name !== MEMORY_ROOT && !(await exists(root.path))) continue;
      made.push(await snapshotRoot(root, req, pending));
    }
    await prune();
    await save();
    if (!pending) made.forEach(announce);
    return made.map((c) => ({ root: c.root, sha: c.sha }));
  }

  /**
   * Every root is snapshotted before a run's first file-changing call, as a pending checkpoint; after
   * each call, the roots that changed keep theirs (a turn that changed nothing makes no checkpoint,
   * and one that changed only the workspace makes one).
   */
  async function beforeWrite(runId: string): Promise<() => Promise<void>> {
    if (!(await load()).some((c) => c.runId === runId)) {
      let p = firstWrite.get(runId);
      if (!p) {
        p = take({ runId, reason: 'before the first file change of the run' }, true).then(
          () => undefined,
          (err) => deps.log?.(`checkpoint before run ${runId} failed: ${(err as Error).message}`),
        );
        firstWrite.set(runId, p);
        void p.finally(() => firstWrite.delete(runId));
      }
      await p;
    }
    return () => keepChanged(runId);
  }

  /** The run's pending checkpoints whose root now differs from them become checkpoints (listed, announced). */
  async function keepChanged(runId: string): Promise<void> {
    const kept: Checkpoint[] = [];
    for (const cp of (await load()).filter((c) => c.pending && c.runId === runId)) {
      try {
        const shadow = shadowOf(cp);
        const before = pendingTrees.get(cp.sha) ?? (await shadow.treeOf(cp.sha));
        if ((await currentTree(shadow)) === before) continue;
        delete cp.pending;
        pendingTrees.delete(cp.sha);
        kept.push(cp);
      } catch (err) {
        deps.log?.(`checkpoint of run ${runId} in ${cp.root} could not be compared: ${(err as Error).message}`);
      }
    }
    if (!kept.length) return;
    // This runs in the registry's finally: a failed save must not replace the call's own outcome (the list in memory has them).
    await save().catch((err) => deps.log?.(`checkpoints of run ${runId} could not be saved: ${(err as Error).message}`));
    kept.forEach(announce);
  }

  /** What a root looks like now as a tree in its shadow (no checkpoint is made). */
  const currentTree = (shadow: Shadow) => serial(shadow, () => shadow.currentTree());

  const treeDiff = (shadow: Shadow, from: string, to: string, paths?: string[]) =>
    boundedDiff((args, maxBytes) => shadow.run(['diff', ...args, from, to, ...(paths?.length ? ['--', ...paths.map((p) => `:(literal)${p}`)] : [])], { maxBytes }), shadow.root.prefix);

  /** One root back to `cp` inside the revert run `runId`, snapshotting its current state first (the undo point). */
  async function restoreRoot(cp: Checkpoint, shadow: Shadow, runId: string, emit: Emit): Promise<Omit<RevertAnswer, 'ok'>> {
    const target = await shadow.treeOf(cp.sha);
    const before = await snapshotRoot(shadow.root, { runId, reason: `before revert to ${cp.sha.slice(0, 12)}` });
    await save();
    emit('checkpoint.created', { sha: before.sha, root: before.root });
    const changed = await serial(shadow, async () => shadow.restore(await shadow.treeOf(before.sha), target));
    return { root: cp.root, sha: cp.sha, undo: before.sha, changed: changed.map((c) => ({ path: shadow.root.prefix + c.rel, change: c.change })) };
  }

  /** Runs `work` as a ledger run of source `checkpoint` (a revert is itself a run, failed when it fails). */
  async function asRun<T>(title: string, work: (run: { id: string; emit: Emit }) => Promise<T>): Promise<T> {
    const run = deps.runs.start({ source: 'checkpoint', title });
    try {
      const answer = await work(run);
      await run.finish('completed');
      return answer;
    } catch (err) {
      await run.finish('failed', { error: (err as Error).message });
      throw err;
    }
  }

  async function revert(sha: string): Promise<RevertAnswer> {
    const cp = await find(sha);
    const shadow = shadowOf(cp);
    return asRun(`revert ${cp.root} to checkpoint ${cp.sha.slice(0, 12)}`, async (run) => ({ ok: true, ...(await restoreRoot(cp, shadow, run.id, run.emit)) }));
  }

  /**
   * "Revert this run" (Claude Code's rewind of a whole turn): every root the run changed goes back to
   * the run's first checkpoint there, the one taken before its first change. Each root gets its own
   * undo checkpoint; every root's shadow is checked before any is touched.
   */
  async function revertRun(runId: string): Promise<RevertRunAnswer> {
    if (typeof runId !== 'string' || !runId) throw badRequest('send {"runId": "<run id>"}; GET /api/runs lists the runs');
    if (deps.runs.get(runId)) throw conflict(`run ${runId} is still running; stop it first (POST /api/runs/${runId}/stop), then revert it`);
    const firsts = new Map<string, Checkpoint>();
    for (const c of await shown()) if (c.runId === runId && !firsts.has(c.rootPath)) firsts.set(c.rootPath, c);
    if (!firsts.size) {
      if (!deps.runs.record(runId)) throw notFound(`no run ${runId}; GET /api/runs lists the known runs`);
      throw notFound(`run ${runId} has no checkpoint: it changed no files through a tool (or its checkpoints were pruned)`);
    }
    const plan = [...firsts.values()].map((cp) => ({ cp, shadow: shadowOf(cp) }));
    return asRun(`revert run ${runId} (${plan.map((p) => p.cp.root).join(', ')})`, async (run) => {
      const roots: RevertRunAnswer['roots'] = [];
      for (const { cp, shadow } of plan) roots.push(await restoreRoot(cp, shadow, run.id, run.emit));
      return { ok: true, runId, roots };
    });
  }

  async function runChanges(runId: string, opts: { roots?: string[]; paths?: string[] } = {}): Promise<DiffAnswer & { roots: string[] }> {
    const mine = (await shown()).filter((c) => c.runId === runId && (!opts.roots || opts.roots.includes(c.root)));
    if (!mine.length) {
      if (!deps.runs.record(runId)) throw notFound(`no run ${runId}; GET /api/runs lists the known runs`);
      return { diff: '', roots: [], note: `run ${runId} has no checkpoint${opts.roots ? ` of ${opts.roots.join(', ')}` : ''}: it has not changed files through a tool yet` };
    }
    const firsts = new Map<string, Checkpoint>();
    for (const c of mine) if (!firsts.has(c.rootPath)) firsts.set(c.rootPath, c);
    const answer: DiffAnswer & { roots: string[] } = { diff: '', roots: [] };
    for (const cp of firsts.values()) {
      const shadow = shadowOf(cp);
      const part = await treeDiff(shadow, await shadow.treeOf(cp.sha), await currentTree(shadow), opts.paths);
      answer.roots.push(cp.root);
      answer.diff += part.diff;
      if (part.binary) (answer.binary ??= []).push(...part.binary);
      if (part.omitted) (answer.omitted ??= []).push(...part.omitted);
      if (part.note) answer.note = answer.note ? `${answer.note}; ${cp.root}: ${part.note}` : part.note;
    }
    return answer;
  }

  async function diffSince(sha: string): Promise<DiffAnswer & { root: string }> {
    const cp = await find(sha);
    const shadow = shadowOf(cp);
    return { root: cp.root, ...(await treeDiff(shadow, await shadow.treeOf(cp.sha), await currentTree(shadow))) };
  }

  /**
   * Per root: checkpoints older than `policy.maxAgeMs`, and beyond the newest `policy.kept`,
   * are dropped, except the first and last checkpoint of a run still in flight (its changes so far
   * and its latest undo point); so are the pending ones of runs that ended (they changed nothing
   * there). Their objects go with the next `gc --auto` of that shadow.
   */
  async function prune(): Promise<void> {
    const all = await load();
    const at = now();
    const keep = new Set<string>();
    const live = deps.runs.live();
    for (const run of live) {
      const byRoot = new Map<string, Checkpoint[]>();
      for (const c of all) if (c.runId === run.id && !c.pending) byRoot.set(c.rootPath, [...(byRoot.get(c.rootPath) ?? []), c]);
      for (const cps of byRoot.values()) keep.add(cps[0].sha).add(cps[cps.length - 1].sha);
    }
    const dropped = new Map<string, string[]>();
    const drop = (c: Checkpoint) => dropped.set(c.rootPath, [...(dropped.get(c.rootPath) ?? []), c.sha]);
    const byRoot = new Map<string, Checkpoint[]>();
    for (const c of all) if (!c.pending) byRoot.set(c.rootPath, [...(byRoot.get(c.rootPath) ?? []), c]);
    for (const cps of byRoot.values()) {
      cps.forEach((c, i) => {
        const tooMany = cps.length - i > policy.kept;
        if ((tooMany || at - c.ts > policy.maxAgeMs) && !keep.has(c.sha)) drop(c);
      });
    }
    const liveIds = new Set(live.map((r) => r.id));
    for (const c of all) if (c.pending && !liveIds.has(c.runId)) drop(c);
    if (!dropped.size) return;
    const gone = new Set([...dropped.values()].flat());
    list = all.filter((c) => !gone.has(c.sha));
    for (const sha of gone) pendingTrees.delete(sha);
    for (const [rootPath, shas] of dropped) {
      const root = shadowRoots().find((r) => r.path === rootPath);
      if (!root) continue; // an unmounted folder's shadow stays until it is mounted again
      const shadow = shadowFor(root);
      await serial(shadow, () => shadow.deleteRefs(shas));
      // Queued behind the snapshot, not awaited: the caller's checkpoint is already made.
      void serial(shadow, () => shadow.gc(closing.signal));
    }
  }

  /** A run the engine died in never learnt which roots its last call changed: compare them now. */
  async function init(): Promise<void> {
    const pending = (await load()).filter((c) => c.pending);
    const crashed = new Set(deps.runs.interruptedAtStart.map((r) => r.runId));
    for (const runId of new Set(pending.map((c) => c.runId))) if (crashed.has(runId)) await keepChanged(runId);
  }

  return {
    init,
    snapshot,
    revert,
    revertRun,
    runChanges,
    diffSince,
    beforeWrite,
    list: (filter = {}) => (list ?? []).filter((c) => !c.pending && (!filter.runId || c.runId === filter.runId)),
    async close() {
      closing.abort();
      await Promise.all([...firstWrite.values()]);
    },
  };
}


async function exists(p: string): Promise<boolean> {
  return !!(await lstat(p).catch(() => undefined));
}
