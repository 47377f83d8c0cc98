/**
 * Keeps the index in step with the roots (the workspace and every mount):
 *   - sync: walks every root as ripgrep would (ignore files, hidden entries, no symlinked folders,
 *     never engine state, nothing a vault hides from models), re-chunks what changed since it was
 *     indexed (mtime or size), drops what is gone, and embeds only chunks whose hash has no cached vector;
 *   - update: the same for a few paths, from the engine's own file events and the watcher's;
 * Every stat and read goes through the fenced reader (src/kernel/fenced-read.ts): a link is indexed
 * only when where it leads passes the fence, so a link planted to `<home>/secrets.key` or a private
 * note never reaches search_code or the embeddings endpoint; a file the reader refuses leaves the index.
 *   - rebuild: drops files and chunks (not the vector cache) and syncs from nothing.
 * One job at a time; paths that change meanwhile wait in `pending` (the index's "stale" count).
 */
import path from 'node:path';
import type { Emit } from '../../kernel/bus.js';
import type { Root } from '../../kernel/fence.js';
import type { FencedReader } from '../../kernel/fenced-read.js';
import type { HiddenArea } from '../../kernel/hidden.js';
import { LIMITS } from '../../kernel/limits.js';
import { Overrides } from '../files/ignore.js';
import { SKIPPED_DIRS, walkIgnoring } from '../files/walk.js';
import { chunkFile, embeddingText, type Chunk } from './chunks.js';
import type { Embedder } from './embedder.js';
import type { IndexStore } from './store.js';

/** What is worth a vector: source code and prose-like text, not data, media or lock files. */
const INDEXED = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.py', '.go', '.rs', '.java', '.kt', '.kts', '.swift', '.c', '.h', '.cc', '.cpp', '.hpp', '.cs', '.rb', '.php', '.scala', '.lua', '.sh', '.bash', '.zsh', '.sql', '.vue', '.svelte', '.ex', '.exs', '.hs', '.dart', '.md', '.mdx', '.txt', '.rst', '.css', '.scss', '.html', '.toml', '.yaml', '.yml']);
/** Chunks embedded per step: big enough to fill the endpoint's batches, small enough to show progress. */
const EMBED_STEP = 256;
const READ_AHEAD = 16;

export interface IndexerDeps {
  /** The roots to walk (workspace first, then the mounts). */
  roots: () => Root[];
  /** The only way the index stats or reads a file: what it refuses is never indexed. */
  reader: FencedReader;
  store: () => IndexStore;
  embedder: () => Embedder;
  emit: Emit;
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

  /** Every indexable file name of every root (links listed too: the reader judges where they lead). */
  async function walk(areas: readonly HiddenArea[], signal?: AbortSignal): Promise<Set<string>> {
    const found = new Set<string>();
    for (const root of deps.roots()) {
      await walkIgnoring(root.path, {
        overrides: new Overrides([], []),
        skip: deps.reader.walkSkip(areas, root),
        links: true,
        signal,
        file: (rel) => {
          const v = virtualOf(root, rel);
          if (indexable(v)) found.add(v);
        },
      });
    }
    return found;
  }

  /** Chunks of files, embedded where new, written file by file; a file the reader refuses leaves the index. */
  async function indexFiles(files: string[], areas: readonly HiddenArea[] | undefined, signal?: AbortSignal): Promise<void> {
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
      const read = await Promise.all(slice.map(async (virtual) => {
        const file = await deps.reader.read(virtual, { areas, maxBytes: LIMITS.indexFileBytes });
        // Too big to be worth a vector: kept as a file with no chunks, so it is not read again until it changes.
        if (!file.ok && file.status === 413) return { virtual, file: await deps.reader.stat(virtual, { areas }), text: undefined };
        return { virtual, file, text: file.ok ? file.bytes.toString('utf8') : undefined };
      }));
      for (const { virtual, file, text } of read) {
        if (!file.ok) {
          store.removeFile(virtual);
          progress.done++;
          continue;
        }
        const chunks = text === undefined || text.includes('\u0000') ? [] : await chunkFile(virtual, text);
        batch.push({ virtual, stat: { mtime: file.mtimeMs, size: file.size }, chunks });
        chunkCount += chunks.length;
        if (chunkCount >= EMBED_STEP) await flush();
      }
    }
    if (batch.length) await flush();
  }

  async function sync(signal?: AbortSignal): Promise<void> {
    const store = deps.store();
    const areas = await deps.reader.areas();
    const onDisk = await walk(areas, signal);
    const indexed = store.indexedFiles();
    const changed: string[] = [];
    for (const virtual of onDisk) {
      const was = indexed.get(virtual);
      const st = was ? await deps.reader.stat(virtual, { areas }) : undefined;
      if (!was || !st?.ok || st.mtimeMs !== was.mtime || st.size !== was.size) changed.push(virtual);
    }
    for (const virtual of indexed.keys()) if (!onDisk.has(virtual)) store.removeFile(virtual);
    progress.total = changed.length;
    progress.done = 0;
    await indexFiles(changed, areas, signal);
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
    const files = [...pending];
    pending.clear();
    progress.total = files.length;
    progress.done = 0;
    // A few files: each read fetches what vaults hide itself (a failure to read that refuses, fails closed).
    void enqueue(() => indexFiles(files, undefined)).catch(() => undefined);
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
      // A folder is reported by its own path when it goes (files/folder-watch.ts): each file indexed
      // under it is read again, and leaves the index when it is gone.
      const files = indexable(virtual) ? [virtual] : deps.store().filesUnder(virtual);
      if (!files.length) return;
      for (const f of files) pending.add(f);
      timer ??= setTimeout(drain, 150);
    },
    idle: () => job,
    cancel: () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
