/**
 * The semantic code index behind `search_code` (seed 001 §4.1) and `POST /api/reindex` (seed 000
 * §4.1). Built only when an embeddings endpoint is configured (`embeddings` in engine.config.json);
 * kept current from the engine's file events and the watcher's; searched by vector and by words,
 * fused. docs/search.md says how it works and how to point it at an endpoint.
 */
import path from 'node:path';
import type { Emit, EngineEvent } from '../../kernel/bus.js';
import { badRequest } from '../../kernel/errors.js';
import type { Root } from '../../kernel/fence.js';
import type { FencedReader } from '../../kernel/fenced-read.js';
import type { EmbeddingsConfig } from '../config/types.js';
import { changedPaths } from '../files/changed-paths.js';
import { httpEmbedder, type Embedder } from './embedder.js';
import { localEmbedder } from './local-embedder.js';
import { createIndexer } from './indexer.js';
import { IndexStore, type Hit } from './store.js';

export interface CodeIndexDeps {
  /** `<home>/index`, where code.sqlite lives. */
  dir: string;
  /** The roots the index covers (workspace first, then the mounts). */
  roots: () => Root[];
  /** The only way the index reads a file (links judged where they lead; what vaults hide is left out). */
  reader: FencedReader;
  embeddings: () => EmbeddingsConfig | null | undefined;
  /** The endpoint's key from the secret store, if any. */
  embeddingsKey: () => Promise<string | undefined>;
  emit: Emit;
  log: (line: string) => void;
  /** A downloaded local model's folder (the local models' store), for `{local: true}` embeddings. */
  localModelDir: (repo: string) => Promise<{ path: string; dtypes: string[] } | undefined>;
  /** The environment a worker process gets (an allowlist). */
  workerEnv: () => Record<string, string>;
  /** Counted by tests: every request sent to the embeddings endpoint. */
  onEmbedRequest?: () => void;
}

export interface IndexStatus {
  configured: boolean;
  state: 'off' | 'building' | 'ready' | 'error';
  files: number;
  chunks: number;
  /** Files changed on disk and not yet re-indexed. */
  stale: number;
  building: { total: number; done: number } | null;
  error?: string;
}

const RESULTS = 8;
const ANSWER_CHARS = 12_000;
const CHUNK_LINES_SHOWN = 40;

export type CodeIndex = ReturnType<typeof createCodeIndex>;

export function createCodeIndex(deps: CodeIndexDeps) {
  let current: { key: string; store: IndexStore; embedder: Embedder & { close?(): void } } | undefined;
  let error: string | undefined;

  /** The store and embedder for the configured endpoint; a new endpoint or model starts a new index. */
  const open = () => {
    const cfg = deps.embeddings();
    if (!cfg) throw badRequest('no embeddings endpoint is configured; set "embeddings": {"baseUrl", "model"} with PUT /api/config to build the semantic index');
    const key = cfg.local ? `local|${cfg.model}` : `${cfg.baseUrl}|${cfg.model}`;
    if (current?.key !== key) {
      current?.store.close();
      current?.embedder.close?.();
      const embedder = cfg.local
        ? localEmbedder({ repo: cfg.model, dir: deps.localModelDir, env: deps.workerEnv, log: deps.log })
        : httpEmbedder({ baseUrl: cfg.baseUrl!, model: cfg.model, key: deps.embeddingsKey, onRequest: deps.onEmbedRequest });
      current = { key, store: new IndexStore(path.join(deps.dir, 'code.sqlite'), embedder.id), embedder };
    }
    return current;
  };

  const indexer = createIndexer({ roots: deps.roots, reader: deps.reader, store: () => open().store, embedder: () => open().embedder, emit: deps.emit });

  const track = (job: Promise<void>) =>
    job.then(
      () => void (error = undefined),
      (err) => {
        error = (err as Error).message;
        deps.log(`index: ${error}`);
      },
    );

  return {
    status(): IndexStatus {
      const configured = !!deps.embeddings();
      if (!configured) return { configured, state: 'off', files: 0, chunks: 0, stale: 0, building: null };
      const counts = current ? current.store.counts() : { files: 0, chunks: 0 };
      const p = indexer.progress;
      return { configured, state: p.building ? 'building' : error ? 'error' : 'ready', ...counts, stale: indexer.stale(), building: p.building ? { total: p.total, done: p.done } : null, ...(error ? { error } : {}) };
    },

    /** At start and when the endpoint changes: bring the index up to date in the background. */
    start(): void {
      if (!deps.embeddings()) return;
      try {
        open();
      } catch (err) {
        error = (err as Error).message;
        return;
      }
      void track(indexer.sync());
    },

    /** POST /api/reindex: rebuild from nothing; answers at once, progress as index.* events. */
    reindex(): { ok: true } {
      open();
      void track(indexer.rebuild());
      return { ok: true };
    },

    /** The engine's and the watcher's file events. */
    onEvent(e: EngineEvent): void {
      if (current) for (const p of changedPaths(e)) indexer.changed(p);
    },

    async search(query: string, limit = RESULTS): Promise<Hit[]> {
      const { store, embedder } = open();
      const [vector] = await embedder.embed([query]);
      return store.search(query, vector, limit);
    },

    /** The search_code answer: `path:line (score)` and the chunk, best first, capped in size. */
    async answer(query: string): Promise<string> {
      const hits = await this.search(query);
      const s = this.status();
      const note = s.state === 'building' ? `(the index is still being built: ${s.building?.done ?? 0} of ${s.building?.total ?? 0} files done)\n` : s.stale ? `(${s.stale} changed files are being re-indexed)\n` : '';
      if (!hits.length) return `${note}no code matches "${query}" in the semantic index (${s.files} files, ${s.chunks} chunks); try other words, or grep for an exact string`;
      let out = note;
      for (const h of hits) {
        const lines = h.text.split('\n');
        const shown = lines.slice(0, CHUNK_LINES_SHOWN).join('\n') + (lines.length > CHUNK_LINES_SHOWN ? `\n... (${lines.length - CHUNK_LINES_SHOWN} more lines, read_file ${h.path} for the rest)` : '');
        const block = `${h.path}:${h.startLine} (${h.score.toFixed(3)})${h.name ? ` ${h.name}` : ''}\n${shown}\n\n`;
        if (out.length + block.length > ANSWER_CHARS) {
          out += `... ${hits.length - hits.indexOf(h)} more matches not shown`;
          break;
        }
        out += block;
      }
      return out.trimEnd();
    },

    idle: () => indexer.idle(),
    close(): void {
      indexer.cancel();
      current?.embedder.close?.();
      current?.store.close();
      current = undefined;
    },
  };
}
