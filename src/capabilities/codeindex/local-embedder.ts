/**
 * Embeddings with no endpoint and no key: a feature-extraction model downloaded with the local
 * models capability (`POST /api/models/download`), run in a worker process of its own
 * (embed-worker.ts), started on first use and started again after a crash.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Embedder } from './embedder.js';

export interface LocalEmbedderDeps {
  repo: string;
  /** The downloaded model's folder and weights, or undefined when it is not downloaded. */
  dir: (repo: string) => Promise<{ path: string; dtypes: string[] } | undefined>;
  /** The worker's environment (an allowlist: models/worker-env.ts). */
  env: () => Record<string, string>;
  log: (line: string) => void;
}

const BATCH = 32;

/** The worker's entry: the TypeScript source under tsx, else the compiled file next to this one. */
function workerEntry(): { file: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) return { file: path.join(path.dirname(here), 'embed-worker.ts'), execArgv: ['--import', 'tsx'] };
  const nextTo = path.join(path.dirname(here), 'embed-worker.js');
  return { file: existsSync(nextTo) ? nextTo : path.join(path.dirname(here), '..', 'capabilities', 'codeindex', 'embed-worker.js'), execArgv: [] };
}

export function localEmbedder(deps: LocalEmbedderDeps): Embedder & { close(): void } {
  let worker: { child: ChildProcess; ready: Promise<void>; pending: Map<string, { resolve(v: number[][]): void; reject(e: Error): void }> } | undefined;

  const start = async () => {
    const local = await deps.dir(deps.repo);
    if (!local) throw new Error(`the local embedding model ${deps.repo} is not downloaded; POST /api/models/download {"repo": "${deps.repo}"} first`);
    const { file, execArgv } = workerEntry();
    const child = fork(file, [], { execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: deps.env(), serialization: 'json' });
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
    const pending = new Map<string, { resolve(v: number[][]): void; reject(e: Error): void }>();
    const entry = { child, pending, ready: Promise.resolve() };
    entry.ready = new Promise<void>((resolve, reject) => {
      child.on('message', (m: { type: string; id?: string; vectors?: number[][]; error?: string }) => {
        if (m.type === 'loaded') resolve();
        else if (m.type === 'load-failed') reject(new Error(`the local embedding model ${deps.repo} did not load: ${m.error}`));
        else if (m.id && pending.has(m.id)) {
          const p = pending.get(m.id)!;
          pending.delete(m.id);
          if (m.type === 'embedded') p.resolve(m.vectors!);
          else p.reject(new Error(`the local embedding model failed: ${m.error}`));
        }
      });
      child.on('exit', (code, signal) => {
        const failure = new Error(`the local embedding worker ended (${signal ?? `exit ${code}`})${stderr ? `: ${stderr.trim().split('\n').at(-1)}` : ''}`);
        for (const p of pending.values()) p.reject(failure);
        pending.clear();
        reject(failure);
        if (worker === entry) worker = undefined;
      });
    });
    entry.ready.catch((err) => deps.log(`index: ${(err as Error).message}`));
    // Full precision first: an embedding's quality matters more than its speed here.
    const dtypes = [...['fp32', 'fp16', 'q8'].filter((d) => local.dtypes.includes(d)), ...local.dtypes.filter((d) => !['fp32', 'fp16', 'q8'].includes(d))];
    child.send({ type: 'load', dir: local.path, dtypes });
    return entry;
  };

  let starting: Promise<NonNullable<typeof worker>> | undefined;
  const ensure = async () => {
    if (worker) return worker;
    starting ??= start().finally(() => (starting = undefined));
    const w = await starting;
    worker = w;
    await w.ready;
    return w;
  };

  return {
    id: `local|${deps.repo}`,
    async embed(texts) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        const w = await ensure();
        const id = randomUUID();
        const vectors = await new Promise<number[][]>((resolve, reject) => {
          w.pending.set(id, { resolve, reject });
          w.child.send({ type: 'embed', id, texts: texts.slice(i, i + BATCH) });
        });
        out.push(...vectors.map((v) => Float32Array.from(v)));
      }
      return out;
    },
    close() {
      worker?.child.kill();
      worker = undefined;
    },
  };
}
