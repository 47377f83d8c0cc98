/**
 * The engine's side of the model worker: forks one worker process for the loaded model (loading
 * another model ends the previous one), sends it generations, relays their tokens, reports
 * `model.loading` / `model.loaded` / `model.unloaded` / `model.stats` / `model.worker.crashed`,
 * loads again on the next request after a crash, and unloads a model idle for `idleMs`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Emit } from '../../kernel/bus.js';
import { EngineError } from '../../kernel/errors.js';
import type { ModelStore } from './store.js';
import { DTYPE_FALLBACK, checkRepo } from './types.js';
import { workerEnv } from './worker-env.js';
import type { GenerateRequest, GenerateResult } from '../../providers/types.js';
import type { FromWorker } from './worker-protocol.js';

export type { GenerateRequest, GenerateResult };

interface Pending { onToken: (t: string) => void; resolve: (r: GenerateResult) => void; reject: (e: Error) => void }
interface Loaded {
  repo: string;
  child: ChildProcess;
  state: 'loading' | 'loaded';
  dtype?: string;
  ready: Promise<void>;
  pending: Map<string, Pending>;
  counting: Map<string, { resolve(counts: number[]): void; reject(e: Error): void }>;
  templateHasTools: boolean;
  contextLength: number | null;
  lastUsed: number;
  stopping: boolean;
}


/** The worker's entry: the TypeScript source under tsx, else the compiled or bundled file next to this one. */
function workerEntry(): { file: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) return { file: path.join(path.dirname(here), 'model-worker.ts'), execArgv: ['--import', 'tsx'] };
  // dist/capabilities/models/ (tsc) holds it next to this file; the bundle (dist/bundle/engine.cjs) reaches it there.
  const nextTo = path.join(path.dirname(here), 'model-worker.js');
  return { file: existsSync(nextTo) ? nextTo : path.join(path.dirname(here), '..', 'capabilities', 'models', 'model-worker.js'), execArgv: [] };
}

export class WorkerHost {
  private current: Loaded | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: { store: ModelStore; emit: Emit; log: (l: string) => void; idleMs: () => number }) {}

  status() {
    const c = this.current;
    return c ? { repo: c.repo, state: c.state, dtype: c.dtype ?? null, pid: c.child.pid ?? null, templateHasTools: c.templateHasTools } : null;
  }

  /** Starts loading (answers once the worker is forked); `ready` settles when the model is loaded. */
  async load(repoIn: unknown, dtype?: string): Promise<{ repo: string; ready: Promise<void> }> {
    const repo = checkRepo(repoIn);
    if (this.current?.repo === repo && !this.current.stopping) return { repo, ready: this.current.ready };
    const local = await this.deps.store.get(repo);
    if (!local) throw new EngineError(404, `${repo} is not downloaded; POST /api/models/download {"repo": "${repo}"} first`);
    if (dtype && !local.dtypes.includes(dtype)) throw new EngineError(400, `${repo} has no downloaded ${dtype} weights; downloaded: ${local.dtypes.join(', ')}`);
    await this.unload('replaced');
    const order = dtype ? [dtype, ...DTYPE_FALLBACK.filter((d) => d !== dtype)] : [...DTYPE_FALLBACK, ...local.dtypes.filter((d) => !DTYPE_FALLBACK.includes(d))];
    const dtypes = order.filter((d) => local.dtypes.includes(d));
    const { file, execArgv } = workerEntry();
    const child = fork(file, [], { execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: workerEnv(), serialization: 'json' });
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
    const entry: Loaded = { repo, child, state: 'loading', ready: undefined as unknown as Promise<void>, pending: new Map(), counting: new Map(), templateHasTools: false, contextLength: null, lastUsed: Date.now(), stopping: false };
    this.current = entry;
    this.deps.emit('model.loading', { repo, pid: child.pid, dtypes });
    entry.ready = new Promise<void>((resolve, reject) => {
      child.on('message', (m: FromWorker) => {
        if (m.type === 'progress') this.deps.emit('model.loading', { repo, status: m.status, file: m.file, progress: m.progress });
        else if (m.type === 'loaded') {
          entry.state = 'loaded';
          entry.dtype = m.dtype;
          entry.templateHasTools = m.templateHasTools;
          entry.contextLength = m.contextLength;
          const fellBack = m.failed.length ? `fell back to ${m.dtype}: ${m.failed.map((f) => `${f.dtype} failed (${f.error})`).join('; ')}` : undefined;
          if (fellBack) this.deps.log(`models: ${repo} ${fellBack}`);
          this.deps.emit('model.loaded', { repo, dtype: m.dtype, ms: m.ms, pid: child.pid, ...(fellBack ? { fellBack } : {}) });
          this.touch(entry);
          resolve();
        } else if (m.type === 'load-failed') {
          reject(new EngineError(500, `${repo} did not load: ${m.error}`));
          void this.unload('load failed', m.error);
        } else if (m.type === 'token') entry.pending.get(m.id)?.onToken(m.text);
        else if (m.type === 'done') {
          const p = entry.pending.get(m.id);
          entry.pending.delete(m.id);
          this.touch(entry);
          const tokensPerSecond = m.outputTokens && m.ms ? Math.round((m.outputTokens / (m.ms / 1000)) * 10) / 10 : 0;
          this.deps.emit('model.stats', { repo, dtype: entry.dtype, inputTokens: m.inputTokens, outputTokens: m.outputTokens, tokensPerSecond, firstTokenMs: m.firstTokenMs, rssBytes: m.rssBytes });
          p?.resolve({ text: m.text, inputTokens: m.inputTokens, outputTokens: m.outputTokens, finish: m.finish });
        } else if (m.type === 'counted') {
          entry.counting.get(m.id)?.resolve(m.counts);
          entry.counting.delete(m.id);
        } else if (m.type === 'error') {
          const p = entry.pending.get(m.id) ?? entry.counting.get(m.id);
          entry.pending.delete(m.id);
          entry.counting.delete(m.id);
          p?.reject(new EngineError(500, `the local model failed: ${m.error}`));
        }
      });
      child.on('exit', (code, signal) => {
        const failure = new EngineError(503, `the local model's worker process ended (${signal ?? `exit ${code}`}); the next request loads ${repo} again`);
        for (const p of [...entry.pending.values(), ...entry.counting.values()]) p.reject(failure);
        entry.pending.clear();
        entry.counting.clear();
        reject(failure);
        if (this.current === entry) this.current = undefined;
        if (!entry.stopping) {
          this.deps.log(`models: worker for ${repo} crashed (${signal ?? `exit ${code}`})${stderr ? `: ${stderr.trim().split('\n').at(-1)}` : ''}`);
          this.deps.emit('model.worker.crashed', { repo, code, signal, pid: child.pid });
        }
      });
    });
    entry.ready.catch(() => undefined);
    child.send({ type: 'load', dir: local.path, dtypes });
    return { repo, ready: entry.ready };
  }

  /** Ends the worker process (its memory returns to the system). */
  async unload(reason = 'requested', error?: string): Promise<boolean> {
    const c = this.current;
    if (!c) return false;
    this.current = undefined;
    c.stopping = true;
    clearTimeout(this.idleTimer);
    const exited = new Promise<void>((r) => (c.child.exitCode !== null || c.child.signalCode !== null ? r() : c.child.once('exit', () => r())));
    c.child.kill('SIGTERM');
    const timer = setTimeout(() => c.child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
    this.deps.emit('model.unloaded', { repo: c.repo, reason, ...(error ? { error } : {}) });
    return true;
  }

  /** Info about the model a provider names (loading it when needed): for the provider's first call. */
  async ensure(repo: string): Promise<Loaded> {
    const { ready } = await this.load(repo);
    await ready;
    const c = this.current;
    if (!c || c.repo !== repo) throw new EngineError(503, `${repo} was unloaded while loading; try again`);
    return c;
  }

  /** One generation on the loaded model (loading it first when needed); tokens arrive through onToken. */
  async generate(repo: string, req: GenerateRequest, onToken: (t: string) => void, signal?: AbortSignal): Promise<GenerateResult> {
    const c = await this.ensure(repo);
    const id = randomUUID();
    clearTimeout(this.idleTimer);
    return new Promise<GenerateResult>((resolve, reject) => {
      const stop = () => c.child.connected && c.child.send({ type: 'stop', id });
      if (signal?.aborted) stop();
      signal?.addEventListener('abort', stop, { once: true });
      const done = () => signal?.removeEventListener('abort', stop);
      c.pending.set(id, { onToken, resolve: (r) => (done(), resolve(r)), reject: (e) => (done(), reject(e)) });
      c.child.send({ type: 'generate', id, messages: req.messages, tools: req.tools, maxTokens: req.maxTokens, temperature: req.temperature, topP: req.topP });
    });
  }

  /** Token counts of texts with the model's own tokenizer (loading the model when needed). */
  async countTokens(repo: string, texts: string[]): Promise<number[]> {
    const c = await this.ensure(repo);
    const id = randomUUID();
    return new Promise<number[]>((resolve, reject) => {
      c.counting.set(id, { resolve, reject });
      c.child.send({ type: 'count', id, texts });
    });
  }

  private touch(c: Loaded): void {
    c.lastUsed = Date.now();
    clearTimeout(this.idleTimer);
    const ms = this.deps.idleMs();
    if (ms > 0) {
      this.idleTimer = setTimeout(() => {
        if (this.current === c && c.pending.size === 0) void this.unload('idle');
      }, ms);
      this.idleTimer.unref();
    }
  }

  close(): Promise<boolean> {
    return this.unload('engine closing');
  }
}
