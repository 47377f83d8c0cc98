/**
 * Scale curves for a growing workspace (10k, 100k, 1M files; SCALE=0.01 for a quick look), each
 * with an ignored node_modules and .git inside (bench/scale-workspace.ts):
 *
 *   start to first 200      fork of the engine to GET /api/status answering: must stay flat (it listens first)
 *   start to watching       until startEngine resolves, the watcher armed over every folder: linear,
 *                           with the watcher's memory (RSS with the watcher minus RSS of a start without)
 *   GET /api/files          at most 1 500 entries per root, breadth-first: grows with the folders it
 *                           reads to reach them (a whole level at a time), far below linear in files
 *   GET /api/search         rg until it has 500 results (then stopped): at most linear in files read
 *   grep tool               rg over every file, first 200 matches in order: linear
 *
 * The engine runs in its own process (bench/fixtures/scale-engine.ts, through tsx: the start-up times
 * include tsx compiling the engine, the same at every size). `rg` over the same tree is timed once
 * per size as the baseline for the two searches.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { medianMs, type Point, printCurve, sizes } from './lib/curve.js';
import { run } from './files-fixture.js';
import { BENCH_DIR } from './lib/child.js';
import { loadNote } from './lib/rounds.js';
import { freePort } from './lib/spawned.js';
import { makeWorkspace, NEEDLE_EVERY, since } from './scale-workspace.js';

const SIZES = sizes([10_000, 100_000, 1_000_000]);

interface Started {
  child: ChildProcess;
  url: string;
  firstOkMs: number;
  readyMs: number;
  ask<T>(m: object): Promise<T>;
  stop(): Promise<void>;
}

async function start(home: string, watch: boolean): Promise<Started> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = fork(path.join(BENCH_DIR, 'fixtures', 'scale-engine.ts'), [], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    env: { ...process.env, BENCH_HOME: home, BENCH_PORT: String(port), BENCH_WATCH: watch ? '1' : '0' },
  });
  const ready = new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => c.toString().includes('ready') && resolve(performance.now() - t0));
    child.once('exit', (code) => reject(new Error(`the engine exited with ${code}`)));
  });
  let firstOkMs = 0;
  for (;;) {
    if (child.exitCode !== null) throw new Error('the engine exited');
    const ok = await fetch(`${url}/api/status`).then((r) => r.status === 200, () => false);
    if (ok) {
      firstOkMs = performance.now() - t0;
      break;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const readyMs = await ready;
  let next = 0;
  return {
    child,
    url,
    firstOkMs,
    readyMs,
    ask: <T>(m: object) =>
      new Promise<T>((resolve) => {
        const id = ++next;
        const on = (r: { id: number }) => r.id === id && (child.off('message', on), resolve(r as T));
        child.on('message', on);
        child.send({ ...m, id });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const curves = {
  first: [] as Point[],
  watching: [] as Point[],
  list: [] as Point[],
  search: [] as Point[],
  grep: [] as Point[],
};
const notes: string[] = [];
for (const n of SIZES) {
  const home = mkdtempSync(path.join(os.tmpdir(), 'bench-scale-files-'));
  const ws = path.join(home, 'workspace');
  try {
    const t0 = performance.now();
    makeWorkspace(ws, n);
    console.log(`fixture: ${n} files (+ ${Math.ceil(n / 10)} in node_modules, ${Math.ceil(n / 20)} in .git) in ${since(t0)} s`);
    const bare = await start(home, false);
    const { rss: bareRss } = await bare.ask<{ rss: number }>({ rss: true });
    await bare.stop();
    const e = await start(home, true);
    try {
      const { rss } = await e.ask<{ rss: number }>({ rss: true });
      const watcherMb = Math.max(0, rss - bareRss) / 2 ** 20;
      curves.first.push({ size: n, ms: e.firstOkMs, mb: rss / 2 ** 20 });
      curves.watching.push({ size: n, ms: e.readyMs, mb: watcherMb });
      notes.push(`${n} files: first 200 without the watcher ${bare.firstOkMs.toFixed(0)} ms; watcher ${watcherMb.toFixed(1)} MB (${((watcherMb * 2 ** 20) / n).toFixed(0)} bytes a file)`);
      const runs = n >= 500_000 ? 1 : 3;
      let listed = 0;
      curves.list.push({
        size: n,
        ms: await medianMs(async () => {
          listed = ((await (await fetch(`${e.url}/api/files`)).json()) as { files: unknown[] }).files.length;
        }, 5),
      });
      let found = 0;
      curves.search.push({
        size: n,
        ms: await medianMs(async () => {
          found = ((await (await fetch(`${e.url}/api/search?q=needle_token`)).json()) as { results: unknown[] }).results.length;
        }, runs),
      });
      let head = '';
      curves.grep.push({
        size: n,
        ms: await medianMs(async () => {
          const out = await e.ask<{ text: string; isError: boolean }>({ tool: 'grep', args: { pattern: 'needle_token \\d+' } });
          if (out.isError) throw new Error(out.text.slice(0, 200));
          head = out.text.split('\n')[0];
        }, runs),
      });
      const r0 = performance.now();
      await run('rg', ['--json', '-F', 'needle_token'], ws);
      const rgMs = performance.now() - r0;
      notes.push(
        `${n} files: listed ${listed}, search ${found} results (${n / NEEDLE_EVERY} matching files), grep "${head}"; ` +
          `rg --json alone ${rgMs.toFixed(0)} ms (search ${(curves.search.at(-1)!.ms / rgMs).toFixed(2)}x, grep ${(curves.grep.at(-1)!.ms / rgMs).toFixed(2)}x)`,
      );
    } finally {
      await e.stop();
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
console.log(await loadNote());
for (const line of notes) console.log(line);
printCurve({ path: 'start to first 200 (MB: engine RSS, watching)', unit: 'files', expected: 'flat', points: curves.first });
printCurve({ path: 'start to watching (MB: the watcher, RSS with minus without)', unit: 'files', expected: 'linear', points: curves.watching });
printCurve({ path: 'GET /api/files (1 500 per root)', unit: 'files', expected: 'linear', points: curves.list });
printCurve({ path: 'GET /api/search (500 results at most)', unit: 'files', expected: 'linear', points: curves.search });
printCurve({ path: 'grep tool (first 200 matches)', unit: 'files', expected: 'linear', points: curves.grep });
