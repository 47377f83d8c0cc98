/**
 * Downloads: only the files one dtype needs, pinned to the commit the hub's detail named, each
 * through `<file>.incomplete` that a later download resumes with `Range` + `If-Range` (a changed
 * file answers 200 and starts over), verified by size and by sha256 (LFS) or git blob sha1 before
 * it takes its real name. Progress goes out as throttled `model.download.*` events.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { addAbortSignal } from 'node:stream';
import { finished } from 'node:stream/promises';
import { httpGet } from './http-get.js';
import { SinkThread, type FileSink } from './file-sink.js';
import { EngineError } from '../../kernel/errors.js';
import type { Emit } from '../../kernel/bus.js';
import type { HubClient, HubDetail, HubSibling } from './hub.js';
import { MODEL_FILES, REQUIRED_FILES, checkDtype, checkRepo, dtypesIn, weightFiles } from './types.js';
import type { ModelStore } from './store.js';

interface Download {
  id: string;
  repo: string;
  dtype: string;
  commit: string;
  state: 'running' | 'completed' | 'failed' | 'canceled';
  bytes: number;
  total: number;
  files: string[];
  error?: string;
}

const PROGRESS_EVERY_MS = 250;

export class Downloads {
  private readonly all = new Map<string, { d: Download; abort: AbortController; done: Promise<void> }>();
  /** Sink threads a finished download left (starting one costs tens of ms, a small download's worth). */
  private readonly idleSinks: SinkThread[] = [];

  constructor(private readonly deps: { hub: HubClient; store: ModelStore; emit: Emit; log: (l: string) => void }) {}

  list(): Download[] {
    return [...this.all.values()].map((e) => ({ ...e.d, files: [...e.d.files] }));
  }

  inFlight(): Download[] {
    return this.list().filter((d) => d.state === 'running');
  }

  /** Resolves the detail and the file plan, then runs in the background; answers the download's id. */
  async start(body: { repo?: unknown; dtype?: unknown }): Promise<{ id: string; commit: string; files: string[]; total: number }> {
    const repo = checkRepo(body.repo);
    const dtype = checkDtype(body.dtype);
    for (const e of this.all.values()) {
      if (e.d.repo === repo && e.d.state === 'running') throw new EngineError(409, `${repo} is already downloading (id ${e.d.id}); cancel it with DELETE /api/models/download/${e.d.id} or wait`);
    }
    const detail = await this.deps.hub.detail(repo);
    const names = detail.siblings.map((s) => s.rfilename);
    const weights = weightFiles(names, dtype);
    if (!weights.length) {
      const have = dtypesIn(names);
      throw new EngineError(400, have.length ? `${repo} has no ${dtype} weights; pick one of: ${have.join(', ')}` : `${repo} has no ONNX weights (onnx/model*.onnx) the local runtime can load`);
    }
    const missing = REQUIRED_FILES.filter((f) => !names.includes(f));
    if (missing.length) throw new EngineError(400, `${repo} lacks ${missing.join(', ')}, which the local runtime needs`);
    const plan = [...MODEL_FILES.filter((f) => names.includes(f)), ...weights].map((n) => detail.siblings.find((s) => s.rfilename === n)!);
    const d: Download = {
      id: randomUUID(), repo, dtype, commit: detail.sha, state: 'running', bytes: 0,
      total: plan.reduce((n, s) => n + sizeOf(s), 0), files: plan.map((s) => s.rfilename),
    };
    const abort = new AbortController();
    const done = this.run(d, detail, plan, abort.signal);
    this.all.set(d.id, { d, abort, done });
    return { id: d.id, commit: d.commit, files: d.files, total: d.total };
  }

  /** Cancels a running download and removes its partial files. */
  async cancel(id: string): Promise<void> {
    const e = this.all.get(id);
    if (!e) throw new EngineError(404, `no download with id ${id}; GET /api/models lists the downloads`);
    if (e.d.state !== 'running') throw new EngineError(409, `download ${id} already ${e.d.state}`);
    e.d.state = 'canceled';
    e.abort.abort();
    await e.done;
    const dir = this.deps.store.dir(e.d.repo);
    await Promise.all(e.d.files.map((f) => fs.rm(path.join(dir, `${f}.incomplete`), { force: true })));
    this.deps.emit('model.download.canceled', { id, repo: e.d.repo, dtype: e.d.dtype, bytes: e.d.bytes, total: e.d.total });
  }

  /** Stops every download, keeping partial files for a later resume (the engine is closing). */
  async close(): Promise<void> {
    for (const e of this.all.values()) if (e.d.state === 'running') e.abort.abort();
    await Promise.all([...this.all.values()].map((e) => e.done));
    for (const s of this.idleSinks.splice(0)) s.close();
  }

  private async run(d: Download, detail: HubDetail, plan: HubSibling[], signal: AbortSignal): Promise<void> {
    const { emit, store } = this.deps;
    const dir = store.dir(d.repo);
    emit('model.download.started', { id: d.id, repo: d.repo, dtype: d.dtype, commit: d.commit, files: d.files, total: d.total });
    let last = 0;
    const progress = (file: string, force = false) => {
      const now = Date.now();
      if (!force && now - last < PROGRESS_EVERY_MS) return;
      last = now;
      emit('model.download.progress', { id: d.id, repo: d.repo, dtype: d.dtype, file, bytes: d.bytes, total: d.total });
    };
    const sinks = this.idleSinks.pop() ?? new SinkThread();
    try {
      await fs.mkdir(dir, { recursive: true });
      let before = 0;
      for (const s of plan) {
        await this.fetchFile(d, s, path.join(dir, s.rfilename), sinks, signal, (n) => {
          d.bytes = before + n;
          progress(s.rfilename);
        });
        before += sizeOf(s);
        d.bytes = before;
        progress(s.rfilename, true);
      }
      await store.record(d.repo, { commit: detail.sha, dtype: d.dtype, files: plan.map((s) => ({ name: s.rfilename, size: sizeOf(s), ...(s.lfs ? { sha256: s.lfs.sha256 } : {}) })) });
      d.state = 'completed';
      emit('model.download.completed', { id: d.id, repo: d.repo, dtype: d.dtype, commit: d.commit, bytes: d.bytes, total: d.total });
    } catch (err) {
      if (signal.aborted) return; // canceled (the canceller reports) or the engine is closing (partials stay)
      d.state = 'failed';
      d.error = err instanceof EngineError ? err.message : `${(err as Error).message}`;
      this.deps.log(`models: download of ${d.repo} failed: ${d.error}`);
      emit('model.download.failed', { id: d.id, repo: d.repo, dtype: d.dtype, bytes: d.bytes, total: d.total, error: d.error });
    } finally {
      if (sinks.healthy) this.idleSinks.push(sinks);
      else sinks.close();
    }
  }

  /** One file: resume `.incomplete` when the server still has the same bytes, verify, rename. */
  private async fetchFile(d: Download, s: HubSibling, target: string, sinks: SinkThread, signal: AbortSignal, onBytes: (n: number) => void): Promise<void> {
    const size = sizeOf(s);
    const expect = expectedDigest(s);
    if (await verified(sinks, target, size, expect)) return onBytes(size);
    await fs.mkdir(path.dirname(target), { recursive: true });
    const partial = `${target}.incomplete`;
    let have = await fs.stat(partial).then((st) => st.size, () => 0);
    if (have > size) {
      await fs.rm(partial, { force: true });
      have = 0;
    }
    const headers: Record<string, string> = { ...(await this.deps.hub.headers()) };
    if (have > 0) {
      headers.range = `bytes=${have}-`;
      // The ETag the hub gives a file is its sha256 (LFS) or git blob id: a changed file answers 200.
      if (expect) headers['if-range'] = `"${expect.value}"`;
    }
    const res = have > 0 && have === size ? undefined : await httpGet(this.deps.hub.fileUrl(d.repo, d.commit, s.rfilename), headers, signal);
    if (res && res.statusCode !== 200 && res.statusCode !== 206) {
      res.resume();
      throw new EngineError(502, `the model hub answered ${res.statusCode} for ${s.rfilename}`);
    }
    const commit = res?.headers['x-repo-commit'];
    if (commit && commit !== d.commit) {
      res.destroy();
      throw new EngineError(502, `the hub served ${s.rfilename} from commit ${commit}, not the pinned ${d.commit}`);
    }
    if (res && res.statusCode !== 206) have = 0;
    const sink = await sinks.open(partial, have, expect && algorithmOf(expect), expect && prefixOf(expect, size));
    let got = have;
    onBytes(got);
    let digest: string | undefined;
    try {
      if (res) await receive(res, sink, signal, (n) => onBytes((got += n)));
      if (got !== size) throw new EngineError(502, `${s.rfilename} arrived with ${got} bytes, not the ${size} the hub declared; download again to resume`);
      digest = await sink.end();
    } catch (err) {
      await sink.abort();
      throw err;
    }
    if (expect && digest !== expect.value) {
      await fs.rm(partial, { force: true });
      throw new EngineError(502, `${s.rfilename} failed verification: its ${expect.kind} is ${digest}, the hub declared ${expect.value}; the file was removed`);
    }
    await fs.rename(partial, target);
  }
}

/** Streams a response body into the sink, pausing the socket while the sink's queue is full. */
function receive(res: IncomingMessage, sink: FileSink, signal: AbortSignal, onBytes: (n: number) => void): Promise<void> {
  addAbortSignal(signal, res);
  res.on('data', (chunk: Buffer) => {
    onBytes(chunk.length);
    try {
      if (!sink.write(chunk)) {
        res.pause();
        sink.drained().then(() => res.resume(), (err: Error) => res.destroy(err));
      }
    } catch (err) {
      res.destroy(err as Error);
    }
  });
  return finished(res);
}

const sizeOf = (s: HubSibling) => s.lfs?.size ?? s.size ?? 0;

interface Digest { kind: 'sha256' | 'git blob sha1'; value: string }
function expectedDigest(s: HubSibling): Digest | undefined {
  if (s.lfs?.sha256) return { kind: 'sha256', value: s.lfs.sha256 };
  if (s.blobId) return { kind: 'git blob sha1', value: s.blobId };
  return undefined;
}
const algorithmOf = (d: Digest) => (d.kind === 'sha256' ? 'sha256' : 'sha1');
/** A git blob id is the sha1 of `blob <size>\0` and the bytes. */
const prefixOf = (d: Digest, size: number) => (d.kind === 'sha256' ? undefined : `blob ${size}\0`);
/** A finished file of the right size and digest is not fetched again (hashed on the sink's thread). */
async function verified(sinks: SinkThread, file: string, size: number, expect: Digest | undefined): Promise<boolean> {
  const st = await fs.stat(file).catch(() => undefined);
  if (!st || st.size !== size) return false;
  if (!expect) return true;
  const sink = await sinks.open(file, size, algorithmOf(expect), prefixOf(expect, size));
  return (await sink.end()) === expect.value;
}
