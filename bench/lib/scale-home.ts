/** What the scale benches share: a temp home per size, an engine on it, a GET timed, memory read. */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { startEngine, type Engine } from '../../src/engine.js';

export const tmpHome = (name: string): string => mkdtempSync(path.join(os.tmpdir(), `bench-scale-${name}-`));
export const removeHome = (dir: string): void => rmSync(dir, { recursive: true, force: true });

export function engineAt(home: string): Promise<Engine> {
  return startEngine({ home, port: 0, log: () => undefined, secretsBackend: 'file', files: { watch: false } });
}

/**
 * Calls `measure` once per size, each with a fresh temp home removed after it. The first size runs
 * twice: first as a warm-up (JIT, module loading), with `warm` true, whose figures the caller drops.
 */
export async function eachSize(name: string, sizes: number[], measure: (n: number, home: string, warm: boolean) => Promise<void>): Promise<void> {
  for (const [i, n] of [sizes[0], ...sizes].entries()) {
    const home = tmpHome(name);
    try {
      await measure(n, home, i === 0);
    } finally {
      removeHome(home);
    }
  }
}

/** `fn` with an engine on `home`, closed after it whatever happens. */
export async function withEngine<T>(home: string, fn: (engine: Engine) => Promise<T>): Promise<T> {
  const engine = await engineAt(home);
  try {
    return await fn(engine);
  } finally {
    await engine.close();
  }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/**
 * A request whose body is counted and dropped as it arrives (so the client never holds a large
 * answer: the memory measured is the engine's). Resolves with the status and the byte count.
 */
export function request(url: string, method = 'GET', body?: unknown): Promise<{ status: number; bytes: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(url, { method, agent, headers: data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {} }, (res) => {
      let bytes = 0;
      let text = '';
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (text.length < 4096) text += c.toString('utf8');
      });
      res.on('end', () => (res.statusCode! < 400 ? resolve({ status: res.statusCode!, bytes, text }) : reject(new Error(`${method} ${url}: ${res.statusCode} ${text}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}

export const get = (engine: Engine, route: string) => request(engine.url + route);
export const getJson = async <T = any>(engine: Engine, route: string): Promise<T> => (await (await fetch(engine.url + route)).json()) as T;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Heap in use after a full collection, in MB: what the process holds, not garbage waiting. */
export function heapMb(): number {
  gc();
  return process.memoryUsage().heapUsed / 1e6;
}

/**
 * Runs `fn` once while sampling the heap every millisecond; returns the peak growth over the
 * settled heap before it, in MB (what one call holds at its worst, e.g. a whole log in memory).
 */
export async function peakMb(fn: () => Promise<unknown>): Promise<number> {
  const before = heapMb();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed / 1e6)), 1);
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage().heapUsed / 1e6);
  return Math.max(0, peak - before);
}

/** CPU time (user + system, every thread of this process) of one call of `fn`, in ms. */
export async function cpuMs(fn: () => Promise<unknown> | unknown): Promise<number> {
  const c0 = process.cpuUsage();
  await fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

/**
 * Median CPU time of `runs` calls of `fn` (one untimed warm-up first), in ms. Engine and client
 * share this process, so this is the work one call costs, whatever else the machine runs: on the
 * shared 2-core box (load 10 and more) the wall clock measures mostly the other processes.
 */
export async function medianCpuMs(fn: () => Promise<unknown> | unknown, runs = 5): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await cpuMs(fn));
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
