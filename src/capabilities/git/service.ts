/**
 * The git capability: the user's repositories (status, diffs, commits, model passes) and the
 * checkpoints of the engine's own shadow repositories. Routes and the chat hook use this service;
 * `checkpoints` is what engine.ts hands to other capabilities (chat, workflows).
 */
import type { Emit } from '../../kernel/bus.js';
import { badRequest } from '../../kernel/errors.js';
import { parseVirtual, type Fence } from '../../kernel/fence.js';
import type { Home } from '../../kernel/home.js';
import { HOME_LAYOUT } from '../../kernel/home.js';
import type { RunLedger } from '../../kernel/runs.js';
import { createCheckpoints, MEMORY_ROOT, type CheckpointService } from './checkpoints.js';
import { commit, review, suggestMessage, type ModelPass } from './commit.js';
import type { GitConfine } from './exec.js';
import { fileDiff, parseWorkMode, rawDiff, workDiff } from './diff.js';
import { findRepos, realOr, resolveTarget, type RepoContext } from './repo.js';
import { status, treeStatus } from './status.js';
import type { DiffAnswer } from './types.js';

export interface GitDeps {
  home: Home;
  fence: Fence;
  runs: RunLedger;
  emit: Emit;
  /** A tool-less model pass billed to its own run (agents/runner.ts `createModelPass`). */
  modelPass: ModelPass;
  log?: (line: string) => void;
  /** Runs git on the user's repositories inside the sandbox when one is active. */
  confine?: GitConfine;
}

/** What a diff route asks for: a work-tree mode of one repository, or a run's or a checkpoint's changes. */
export interface DiffQuery {
  root?: string;
  mode?: string;
  runId?: string;
  sha?: string;
}

export type GitService = ReturnType<typeof createGitService>;

export function createGitService(deps: GitDeps) {
  const ctx: RepoContext = { fence: deps.fence, home: realOr(deps.home.root), confine: deps.confine };
  const checkpoints: CheckpointService = createCheckpoints({
    home: deps.home,
    fence: deps.fence,
    runs: deps.runs,
    emit: deps.emit,
    memoryDir: deps.home.path(HOME_LAYOUT.memory),
    log: deps.log,
  });

  async function contextualDiff(q: DiffQuery): Promise<DiffAnswer & { mode: string; roots?: string[]; root?: string }> {
    if (q.mode === 'run') {
      if (!q.runId) throw badRequest('mode=run needs runId=<run id> (the run whose changes to show)');
      return { mode: 'run', ...(await checkpoints.runChanges(q.runId, { roots: q.root ? [q.root] : undefined })) };
    }
    if (q.mode === 'checkpoint') {
      if (!q.sha) throw badRequest('mode=checkpoint needs sha=<checkpoint sha>');
      return { mode: 'checkpoint', ...(await checkpoints.diffSince(q.sha)) };
    }
    const target = await resolveTarget(ctx, q.root);
    return workDiff(ctx, target, parseWorkMode(q.mode));
  }

  /** One file's diff. Without `root`, the root is the one the path lies in. */
  async function oneFileDiff(q: DiffQuery & { path: string; oldPath?: string }): Promise<DiffAnswer & { path: string; mode: string }> {
    if (q.mode === 'run') {
      if (!q.runId) throw badRequest('mode=run needs runId=<run id>');
      const { root, rel } = await shadowPath(q.path);
      const { roots: _r, ...d } = await checkpoints.runChanges(q.runId, { roots: [root], paths: [rel] });
      return { path: q.path, mode: 'run', ...d };
    }
    if (q.mode === 'checkpoint') throw badRequest('mode=checkpoint shows a whole checkpoint; use GET /api/git/contextual-diff?mode=checkpoint&sha=');
    const rootName = q.root ?? (q.path.startsWith(`${MEMORY_ROOT}/`) ? undefined : (await deps.fence.resolve(q.path)).root.name);
    const target = await resolveTarget(ctx, rootName);
    const { mode, ...d } = await fileDiff(ctx, target, q.path, q.oldPath, parseWorkMode(q.mode));
    return { path: q.path, mode, ...d };
  }

  /** A virtual path as (root, path inside the root) for the checkpoint diffs; `@memory/...` is the memory folder. */
  async function shadowPath(virtual: string): Promise<{ root: string; rel: string }> {
    if (virtual.startsWith(`${MEMORY_ROOT}/`)) return { root: MEMORY_ROOT, rel: parseVirtual(virtual.slice(MEMORY_ROOT.length + 1)).join('/') };
    const r = await deps.fence.resolve(virtual);
    return { root: r.root.name, rel: r.relative };
  }

  async function filesDiff(q: DiffQuery & { paths: string[] }) {
    const files = [];
    for (const p of q.paths) files.push(await oneFileDiff({ ...q, path: p }));
    return { files };
  }

  return {
    checkpoints,
    status: (root?: string) => status(ctx, root),
    repos: async (root?: string) => {
      if (root) deps.fence.root(root); // an unknown root is a 404 sentence, not an empty list
      return (await findRepos(ctx)).filter((r) => !root || r.rootName === root);
    },
    treeStatus: (root?: string) => treeStatus(ctx, root),
    diff: (root: string | undefined, staged: boolean) => rawDiff(ctx, root, staged),
    contextualDiff,
    fileDiff: oneFileDiff,
    filesDiff,
    commit: (root: string | undefined, message: unknown) => commit(ctx, root, message),
    suggestMessage: (root?: string) => suggestMessage(ctx, deps.modelPass, root),
    review: (root?: string) => review(ctx, deps.modelPass, root),
    init: () => checkpoints.init(),
    close: () => checkpoints.close(),
  };
}

