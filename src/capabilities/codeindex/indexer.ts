/**
 * Keeps the index in step with the roots (the workspace and every mount):
 *   - sync: walks every root as ripgrep would (ignore files, hidden entries, no symlinked folders,
 *     never engine state), re-chunks what changed since it was indexed (mtime or size), drops what
 *     is gone, and embeds only chunks whose hash has no cached vector;
 *   - update: the same for a few paths, from the engine's own file events and the watcher's;
 *   - rebuild: drops files and chunks (not the vector cache) and syncs from nothing.
 * One job at a time; paths that change meanwhile wait in `pending` (the index's "stale" count).
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Emit } from '../../kernel/bus.js';
import type { Fence, Root } from '../../kernel/fence.js';
import { Overrides } from '../files/ignore.js';
import { SKIPPED_DIRS, walkIgnoring } from '../files/walk.js';
import { chunkFile, embeddingText, type Chunk } from './chunks.js';
import type { Embedder } from './embedder.js';
import type { IndexStore } from './store.js';

/** What is worth a vector: source code and prose-like text, not data, media or lock files. */
const INDEXED = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.py', '.go', '.rs', '.java', '.kt', '.kts', '.swift', '.c', '.h', '.cc', '.cpp', '.hpp', '.cs', '.rb', '.php', '.scala', '.lua', '.sh', '.bash', '.zsh', '.sql', '.vue', '.svelte', '.ex', '.exs', '.hs', '.dart', '.md', '.mdx', '.txt', '.rst', '.css', '.scss', '.html', '.toml', '.yaml', '.yml']);
const MAX_FILE_BYTES = 512 * 1024;
/** Chunks embedded per step: big enough to fill the endpoint's batches, small enough to show progress. */
const EMBED_STEP = 256;
const READ_AHEAD = 16;

export interface IndexerDeps {
  fence: Fence;
  store: () => IndexStore;
  embedder: () => Embedder;
  emit: Emit;
  /** Paths a model must not see (a vault's forbidden notes): never indexed. */
  hidden?: (virtual: string) => boolean;
}

export interface Progress {
  building: boolean;
  /** Files the current job will look at, and how many it has done. */
  total: number;
  done: number;
}

export const indexable = (virtual: string) =>
  INDEXED.has(path.extname(virtual).toLowerCase()) && !virtual.split('/').some((seg) => seg.startsWith('.') || SKIPPED_DIRS.has(seg));

export function createIndexer(deps: IndexerDeps) {
  const progress: Progress = { building: false, total: 0, done: 0 };
  const pending = new Set<string>();
  let job: Promise<void> = Promise.resolve();

  const virtualOf = (root: Root, rel: string) => (root.kind === 'workspace' ? rel : `${root.name}/${rel}`);

  async function walk(signal?: AbortSignal): Promise<Map<string, string>> {
    const found = new Map<string, string>(); // virtual -> absolute
    for (const root of deps.fence.roots()) {
      await walkIgnoring(root.path, {
        overrides: new Overrides([], []),
        skip: (abs) => !deps.fence.allows(abs),
        signal,
        file: (rel, abs) => {
          const v = virtualOf(root, rel);
          if (indexable(v) && !deps.hidden?.(v)) found.set(v, abs);
        },
      });
    }
    return found;
  }

  /** Chunks of files, embedded where new, written file by file. */
  async function indexFiles(files: Array<{ virtual: string; abs: string }>, signal?: AbortSignal): Promise<void> {
    const store = deps.store();
    let batch: Array<{ virtual: string; stat: { mtime: number; size: number }; chunks: Chunk[] }> = [];
    let chunkCount = 0;
    const flush = async () => {
      const all = batch.flatMap((f) => f.chunks);
      const missing = new Set(store.missing(all.map((c) => c.hash)));
      const toEmbed = all.filter((c) => missing.has(c.hash) && (missing.delete(c.hash) || true));
      if (toEmbed.length) {
        const vectors = await deps.embedder().embed(toEmbed.map(embeddingText), signal);
        store.cacheVectors(toEmbed.map((c, i) => [c.hash, vectors[i]]));
      }
      store.putFiles(batch);
      progress.done += batch.length;
      deps.emit('index.progress', { total: progress.total, done: progress.done });
      batch = [];
      chunkCount = 0;
    };
    // Files are read a few at a time (the disk waits overlap); chunking and writing stay in order.
    for (let i = 0; i < files.length; i += READ_AHEAD) {
      if (signal?.aborted) return;
      const slice = files.slice(i, i + READ_AHEAD);
      const read = await Promise.all(slice.map(async (f) => {
        const st = await stat(f.abs).catch(() => undefined);
        if (!st?.isFile()) return { f, st: undefined, text: undefined };
        const text = st.size > MAX_FILE_BYTES ? undefined : await readFile(f.abs, 'utf8').catch(() => undefined);
        return { f, st, text };
      }));
      for (const { f, st, text } of read) {
        if (!st) {
          store.removeFile(f.virtual);
          progress.done++;
          continue;
        }
        const chunks = text === undefined || text.includes('\u0000') ? [] : await chunkFile(f.virtual, text);
        batch.push({ virtual: f.virtual, stat: { mtime: st.mtimeMs, size: st.size }, chunks });
        chunkCount += chunks.length;
        if (chunkCount >= EMBED_STEP) await flush();
      }
    }
    if (batch.length) await flush();
  }

  async function sync(signal?: AbortSignal): Promise<void> {
    const store = deps.store();
    const onDisk = await walk(signal);
    const indexed = store.indexedFiles();
    const changed: Array<{ virtual: string; abs: string }> = [];
    for (const [virtual, abs] of onDisk) {
      const was = indexed.get(virtual);
      const st = was ? await stat(abs).catch(() => undefined) : undefined;
      if (!was || !st || st.mtimeMs !== was.mtime || st.size !== was.size) changed.push({ virtual, abs });
    }
    for (const virtual of indexed.keys()) if (!onDisk.has(virtual)) store.removeFile(virtual);
    progress.total = changed.length;
    progress.done = 0;
    await indexFiles(changed, signal);
  }

  /** Runs one job after the one in flight; the index says "building" meanwhile. */
  function enqueue(work: () => Promise<void>): Promise<void> {
    const run = job.then(async () => {
      progress.building = true;
      deps.emit('index.started', {});
      try {
        await work();
        const counts = deps.store().counts();
        deps.emit('index.completed', { ...counts });
      } catch (err) {
        deps.emit('index.failed', { error: (err as Error).message });
        throw err;
      } finally {
        progress.building = false;
      }
    });
    job = run.catch(() => undefined);
    return run;
  }

  let timer: NodeJS.Timeout | undefined;
  const drain = () => {
    timer = undefined;
    const paths = [...pending];
    pending.clear();
    const files = paths.flatMap((virtual) => {
      try {
        return [{ virtual, abs: deps.fence.locate(virtual).real }];
      } catch {
        return [];
      }
    });
    progress.total = files.length;
    progress.done = 0;
    void enqueue(() => indexFiles(files)).catch(() => undefined);
  };

  return {
    progress,
    stale: () => pending.size,
    sync: (signal?: AbortSignal) => enqueue(() => sync(signal)),
    rebuild: () =>
      enqueue(async () => {
        deps.store().clear();
        await sync();
      }),
    /** A file changed or went: re-indexed within a moment (changes of the same moment share one job). */
    changed(virtual: string): void {
      if (!indexable(virtual) || deps.hidden?.(virtual)) return;
      pending.add(virtual);
      timer ??= setTimeout(drain, 150);
    },
    idle: () => job,
    cancel: () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
