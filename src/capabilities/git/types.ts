/** What other capabilities (workflows, chat through engine.ts) may know of git and checkpoints. */

/** One changed path of `git status`. `path` and `oldPath` are virtual paths. */
export interface StatusEntry {
  path: string;
  /** The path before a rename or copy. */
  oldPath?: string;
  /** One letter: M modified, A added, D deleted, R renamed, C copied, T type changed, U conflicted, ? untracked. */
  status: string;
  /** For a conflict: the two-letter porcelain code (UU, AA, DU ...), saying which side did what. */
  conflict?: string;
  /** A nested repository (submodule) entry. */
  submodule?: boolean;
}

export interface GitStatus {
  root: string;
  branch: string | null;
  detached: boolean;
  /** The HEAD commit, null before the first commit. */
  head: string | null;
  upstream: string | null;
  ahead: number;
  behind: number;
  staged: StatusEntry[];
  unstaged: StatusEntry[];
  untracked: StatusEntry[];
  conflicted: StatusEntry[];
  clean: boolean;
  /** A merge, rebase, cherry-pick or revert in progress. */
  operation: string | null;
}

export interface RepoInfo {
  /** The `?root=` value for this repository. */
  root: string;
  /** The root (workspace or mount) it lies in. */
  rootName: string;
  /** Its folder as a virtual path ('' for the workspace itself). */
  path: string;
  nested: boolean;
}

export interface DiffAnswer {
  diff: string;
  /** Files whose diff was left out (past the size bound), with their line counts. */
  omitted?: Array<{ path: string; added: number | null; deleted: number | null }>;
  /** Binary files in the diff (git summarises them as "Binary files ... differ"). */
  binary?: string[];
  /** What was left out, in a sentence; absent when the diff is whole. */
  note?: string;
}

/** One checkpoint of one root. */
export interface Checkpoint {
  sha: string;
  /** The root's name at the time (`workspace`, a mount, or `@memory` for the agent memory folder). */
  root: string;
  /** The root's real path (a renamed mount of the same folder keeps its checkpoints). */
  rootPath: string;
  runId: string;
  nodeId?: string;
  reason: string;
  ts: number;
  /**
   * Taken before a run's first file-changing call but not shown yet (the list, events, reverts skip
   * it): it becomes a checkpoint once its root differs from it after a call, and is dropped when the
   * run ends without changing that root.
   */
  pending?: true;
}

export interface SnapshotRequest {
  runId: string;
  /** Root names (`workspace`, mounts, `@memory`); default: every root and the memory folder. */
  roots?: string[];
  nodeId?: string;
  reason: string;
}

export interface RevertAnswer {
  ok: true;
  root: string;
  /** The checkpoint the root now matches. */
  sha: string;
  /** The checkpoint of the state just before this revert: revert to it to undo the revert. */
  undo: string;
  /** Virtual paths the revert wrote or removed, with what happened to each. */
  changed: Array<{ path: string; change: 'restored' | 'removed' | 'added' }>;
}

/**
 * The checkpoints API (docs/git.md). `snapshot` records every root a run can touch into the shadow
 * repositories and emits `checkpoint.created {runId, sha, root, nodeId?}` per root; `revert` rolls a
 * root back (snapshotting first, so it is undoable); `runChanges` is the diff from a run's first
 * checkpoint to now, per root.
 */
/** "Revert this run": every root the run changed, back to the checkpoint before its first change. */
export interface RevertRunAnswer {
  ok: true;
  runId: string;
  /** One revert per root, each undoable through its `undo` checkpoint. */
  roots: Array<Omit<RevertAnswer, 'ok'>>;
}

export interface CheckpointsApi {
  snapshot(req: SnapshotRequest): Promise<Array<{ root: string; sha: string }>>;
  revert(sha: string): Promise<RevertAnswer>;
  revertRun(runId: string): Promise<RevertRunAnswer>;
  runChanges(runId: string, opts?: { roots?: string[]; paths?: string[] }): Promise<DiffAnswer & { roots: string[] }>;
  list(filter?: { runId?: string }): Checkpoint[];
  /**
   * Snapshots every root before the first file-changing tool call of a run (no-op once the run has
   * one); answers what to call when the call has ended: the roots it changed keep their checkpoint.
   */
  beforeWrite(runId: string): Promise<() => Promise<void>>;
}
