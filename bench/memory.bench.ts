/**
 * Idle memory: the built CLI's `serve` (supervisor + engine process) on a fresh home, answered one
 * GET /api/status, then left idle; resident set size of each process from /proc, read twice: past
 * the warm-ups (IDLE_S seconds), and once settled (SETTLED_S), after V8's memory reducer has run.
 * That reducer starts about 8 s after a process's last full collection when it allocates little,
 * and gives back the young generation start-up grew: every process here, baselines included, drops
 * then (the engine by ~10 MB), and a daemon spends its life in the settled state. In the engine it
 * ran 15-18 s after start (2026-12-02, quiet, the CPU and RSS of an idle engine read every 2 s), so
 * a reading at 15 s was often still the unsettled one: settled is read at 25 s. Baseline: a bare `ws` server on node:http (plain node, no tsx) answering the
 * same route and holding an /events socket server, started and measured the same way; a bare
 * Fastify hello-world is shown for context. Rounds alternate; medians with spread. Linux only.
 *
 * Also: the engine process when a model provider is configured (the model SDK stays unloaded until
 * a client opens its chats), the same once GET /api/chat has warmed the SDK, and each process's
 * private memory (smaps_rollup Private_*): most of a Node process's RSS is the node binary's
 * pages, shared by every node process, so private memory is what the supervisor really adds.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_DIR } from './lib/child.js';
import { freePort, writeFastifyScript } from './lib/spawned.js';
import { result, table } from './lib/report.js';
import { alternate, describe, loadNote } from './lib/rounds.js';

const ROOT = path.resolve(BENCH_DIR, '..');
const OUT = path.join(ROOT, '.bench-tmp');
const BUNDLE = path.join(OUT, 'bundle-mem');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 6);
const SETTLED_S = Number(process.env.BENCH_SETTLED_S ?? 25);

const bundled = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'bundle.mjs'), BUNDLE], { cwd: ROOT, stdio: 'inherit' });
if (bundled.status !== 0) throw new Error('the bundle failed');
mkdirSync(OUT, { recursive: true });
const wsScript = path.join(OUT, 'baseline-ws-idle.mjs');
writeFileSync(
  wsScript,
  `import http from 'node:http';
import { WebSocketServer } from 'ws';
const server = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"ok":true}'); });
new WebSocketServer({ server, path: '/events' });
server.listen(Number(process.env.ENGINE_PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));\n`,
);
const fastifyScript = writeFastifyScript(OUT);
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
/** Pages only this process holds (not the node binary and libraries every node process shares). */
const privateMb = (pid: number) =>
  [...readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').matchAll(/^Private_(?:Clean|Dirty):\s+(\d+) kB/gm)].reduce((sum, m) => sum + Number(m[1]), 0) / 1024;
const children = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);

const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-mem-'));
const cache = path.join(tmp, 'cache');

const PROVIDER = JSON.stringify({ providers: [{ type: 'openai-compatible', name: 'p', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }], defaultProvider: 'p' });

interface Idle {
  /** At IDLE_S: [own RSS, first child's RSS or 0, own private, child's private] in MB. */
  early: [number, number, number, number];
  /** The same at SETTLED_S. */
  settled: [number, number, number, number];
}

/** Starts `args`, waits for a 200 (then configures a provider, and opens chat, if asked), idles, reads its memory twice. */
async function idle(args: string[], provider = false, chat = false): Promise<Idle> {
  const port = await freePort();
  const home = mkdtempSync(path.join(tmp, 'home-'));
  const child = spawn(process.execPath, args, { env: { ...process.env, ENGINE_PORT: String(port), ENGINE_GATEWAY_PORT: '0', ENGINE_SECRETS: 'file', ENGINE_HOME: home, ENGINE_CACHE_DIR: cache }, stdio: 'ignore' });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/api/status`).then((r) => r.ok, () => false);
      if (ok) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    if (provider) {
      const put = await fetch(`http://127.0.0.1:${port}/api/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: PROVIDER });
      if (!put.ok) throw new Error(`PUT /api/config answered ${put.status}`);
    }
    if (chat) {
      const list = await fetch(`http://127.0.0.1:${port}/api/chat`);
      if (!list.ok) throw new Error(`GET /api/chat answered ${list.status}`);
    }
    const read = (): Idle['early'] => {
      const kids = children(child.pid!);
      return [rssMb(child.pid!), kids.length ? rssMb(kids[0]) : 0, privateMb(child.pid!), kids.length ? privateMb(kids[0]) : 0];
    };
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const early = read();
    await new Promise((r) => setTimeout(r, (SETTLED_S - IDLE_S) * 1000));
    return { early, settled: read() };
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}

try {
  const serve = [path.join(BUNDLE, 'main.js'), 'serve'];
  const kept = { engine: [] as number[], engineSettled: [] as number[], supervisor: [] as number[], supervisorSettled: [] as number[] };
  const privates = { engine: [] as number[], supervisor: [] as number[], fastify: [] as number[] };
  const settled = { provider: [] as number[], chat: [] as number[], ws: [] as number[], fastify: [] as number[] };
  const s = await alternate(ROUNDS, {
    serve: async () => {
      const { early, settled: late } = await idle(serve);
      kept.supervisor.push(early[0]);
      kept.engine.push(early[1]);
      kept.supervisorSettled.push(late[0]);
      kept.engineSettled.push(late[1]);
      privates.supervisor.push(late[2]);
      privates.engine.push(late[3]);
      return early[0] + early[1];
    },
    provider: async () => {
      const { early, settled: late } = await idle(serve, true);
      settled.provider.push(late[1]);
      return early[1];
    },
    chat: async () => {
      const { early, settled: late } = await idle(serve, true, true);
      settled.chat.push(late[1]);
      return early[1];
    },
    ws: async () => {
      const { early, settled: late } = await idle([wsScript]);
      settled.ws.push(late[0]);
      return early[0];
    },
    fastify: async () => {
      const { early, settled: late } = await idle([fastifyScript]);
      settled.fastify.push(late[0]);
      privates.fastify.push(late[2]);
      return early[0];
    },
  });
  // The warm-up round's figures are not kept.
  for (const xs of [...Object.values(kept), ...Object.values(privates), ...Object.values(settled)]) xs.shift();
  console.log(await loadNote());
  console.log(`RSS at ${IDLE_S} s (past the warm-ups) and at ${SETTLED_S} s (settled, after V8's memory reducer); private memory settled.`);
  table([
    { process: 'engine process', [`RSS MB ${IDLE_S} s`]: describe(kept.engine), [`RSS MB ${SETTLED_S} s`]: describe(kept.engineSettled), 'private MB': describe(privates.engine) },
    { process: 'engine process, a provider configured', [`RSS MB ${IDLE_S} s`]: describe(s.provider), [`RSS MB ${SETTLED_S} s`]: describe(settled.provider), 'private MB': '' },
    { process: 'same, chat opened (model SDK warmed)', [`RSS MB ${IDLE_S} s`]: describe(s.chat), [`RSS MB ${SETTLED_S} s`]: describe(settled.chat), 'private MB': '' },
    { process: 'supervisor process', [`RSS MB ${IDLE_S} s`]: describe(kept.supervisor), [`RSS MB ${SETTLED_S} s`]: describe(kept.supervisorSettled), 'private MB': describe(privates.supervisor) },
    { process: 'serve, both', [`RSS MB ${IDLE_S} s`]: describe(s.serve), [`RSS MB ${SETTLED_S} s`]: '', 'private MB': '' },
    { process: 'bare ws server', [`RSS MB ${IDLE_S} s`]: describe(s.ws), [`RSS MB ${SETTLED_S} s`]: describe(settled.ws), 'private MB': '' },
    { process: 'bare Fastify hello-world', [`RSS MB ${IDLE_S} s`]: describe(s.fastify), [`RSS MB ${SETTLED_S} s`]: describe(settled.fastify), 'private MB': describe(privates.fastify) },
  ]);
  result(`idle engine process RSS at ${IDLE_S} s`, 'MB', kept.engine, s.ws, { under: 70 });
  // Issue 42's aim, settled: under 65 MB with or without a provider.
  result(`idle engine process RSS, settled (${SETTLED_S} s)`, 'MB', kept.engineSettled, settled.ws, { under: 65 });
  result(`idle engine process RSS, a provider configured, settled (${SETTLED_S} s)`, 'MB', settled.provider, settled.ws, { under: 65 });
  result(`supervisor RSS, settled (${SETTLED_S} s)`, 'MB', kept.supervisorSettled, settled.ws, { under: 45 });
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
