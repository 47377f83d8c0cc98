/**
 * Start to first 200, three ways a user meets it, each side by side with a bare Fastify hello-world
 * started the same way (a fresh `node <script>`, polled on the same route until it answers 200):
 *
 *   cold   the first start after an install: an empty code-cache folder (ENGINE_CACHE_DIR), empty home
 *   warm   a later start: the code cache an earlier start wrote, empty home
 *   50k    a warm start over a 50 000-file workspace (the watcher has to subscribe to all of it)
 *
 * Engine sides: `serve` from the bundle (supervisor + engine process, what `npm start` and
 * bin/engine.js run) and `serve --no-supervisor` (the engine in the first process, for service
 * managers), for what the supervisor's own Node boot costs. Node 20 has no code cache for a plain
 * script, so the Fastify baseline compiles from source in every case (it is ~20x less code than the
 * engine).
 * Rounds alternate (order flipped every round); medians with spread. Builds go to .bench-tmp/.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { makeTree } from './files-fixture.js';
import { BENCH_DIR } from './lib/child.js';
import { freePort, writeFastifyScript } from './lib/spawned.js';
import { result, table } from './lib/report.js';
import { alternate, describe, loadNote } from './lib/rounds.js';

const ROOT = path.resolve(BENCH_DIR, '..');
const OUT = path.join(ROOT, '.bench-tmp');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);

const BUNDLE = path.join(OUT, 'bundle');
const bundled = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'bundle.mjs'), BUNDLE], { cwd: ROOT, stdio: 'inherit' });
if (bundled.status !== 0) throw new Error('the bundle failed');

const fastifyScript = writeFastifyScript(OUT);

/** Spawns, polls GET /api/status until 200, stops; `holdMs` keeps it running (to write the code cache). */
async function firstOk(args: string[], env: Record<string, string>, holdMs = 0): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: { ...process.env, ENGINE_PORT: String(port), ENGINE_GATEWAY_PORT: '0', ENGINE_SECRETS: 'file', ...env }, stdio: 'ignore' });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
      const ok = await new Promise<boolean>((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.once('connect', () => socket.end(`GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
        let text = '';
        socket.on('data', (c) => (text += c));
        socket.once('close', () => resolve(text.startsWith('HTTP/1.1 200')));
        socket.once('error', () => resolve(false));
      });
      if (ok) {
        const ms = performance.now() - started;
        if (holdMs) await new Promise((r) => setTimeout(r, holdMs));
        return ms;
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-start-'));
const warmCache = path.join(tmp, 'warm-cache');
const bigHome = path.join(tmp, 'big-home');
const fresh = (name: string) => mkdtempSync(path.join(tmp, name));
const serve = [path.join(BUNDLE, 'main.js'), 'serve'];
const alone = [path.join(BUNDLE, 'main.js'), 'serve', '--no-supervisor'];

try {
  const t0 = performance.now();
  await makeTree(path.join(bigHome, 'workspace'), 50_000);
  console.log(`fixture: 50 000 files in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  // One start writes the code cache the warm cases use, as the first start after an install does.
  await firstOk(serve, { ENGINE_HOME: fresh('home-'), ENGINE_CACHE_DIR: warmCache }, 3000);

  const cases = [
    { name: 'cold (no code cache), empty home', env: () => ({ ENGINE_HOME: fresh('home-'), ENGINE_CACHE_DIR: fresh('cache-') }) },
    { name: 'warm (code cache), empty home', env: () => ({ ENGINE_HOME: fresh('home-'), ENGINE_CACHE_DIR: warmCache }) },
    { name: 'warm, 50 000-file workspace', env: () => ({ ENGINE_HOME: bigHome, ENGINE_CACHE_DIR: warmCache }) },
  ];
  const rows: Array<Record<string, string>> = [];
  const results: Array<() => void> = [];
  for (const c of cases) {
    const s = await alternate(ROUNDS, {
      serve: () => firstOk(serve, c.env()),
      alone: () => firstOk(alone, c.env()),
      fastify: () => firstOk([fastifyScript], {}),
    });
    rows.push({ case: c.name, 'engine serve ms': describe(s.serve), 'serve --no-supervisor ms': describe(s.alone), 'bare Fastify ms': describe(s.fastify) });
    results.push(() => result(`start to first 200, serve, ${c.name}`, 'ms', s.serve, s.fastify, { ratioAtMost: 1.3 }));
    results.push(() => result(`start to first 200, serve --no-supervisor, ${c.name}`, 'ms', s.alone, s.fastify, { ratioAtMost: 1.3 }));
  }
  console.log(await loadNote());
  table(rows);
  for (const r of results) r();
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
