/**
 * Idle memory: the built CLI's `serve` (supervisor + engine process) on a fresh home, answered one
 * GET /api/status, then left idle past the warm-ups (IDLE_S seconds); resident set size of each
 * process from /proc. Baseline: a bare `ws` server on node:http (plain node, no tsx) answering the
 * same route and holding an /events socket server, started and measured the same way; a bare
 * Fastify hello-world is shown for context. Rounds alternate; medians with spread. Linux only.
 *
 * Also: the engine process when a model provider is configured (the model SDK is then warmed once
 * the engine listens; without one it is not loaded), and each process's private memory (smaps_rollup
 * Private_*): most of a Node process's RSS is the node binary's pages, shared by every node process,
 * so private memory is what the supervisor really adds.
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

/** Starts `args`, waits for a 200 (then configures a provider if asked), idles; [own RSS, first child's RSS or 0, own private, child's private] in MB. */
async function idle(args: string[], provider = false): Promise<[number, number, number, number]> {
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
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const kids = children(child.pid!);
    return [rssMb(child.pid!), kids.length ? rssMb(kids[0]) : 0, privateMb(child.pid!), kids.length ? privateMb(kids[0]) : 0];
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
  const engineMb: number[] = [];
  const supervisorMb: number[] = [];
  const enginePrivate: number[] = [];
  const supervisorPrivate: number[] = [];
  const fastifyPrivate: number[] = [];
  const s = await alternate(ROUNDS, {
    serve: async () => {
      const [sup, eng, supPrivate, engPrivate] = await idle(serve);
      supervisorMb.push(sup);
      engineMb.push(eng);
      supervisorPrivate.push(supPrivate);
      enginePrivate.push(engPrivate);
      return sup + eng;
    },
    provider: async () => (await idle(serve, true))[1],
    ws: async () => (await idle([wsScript]))[0],
    fastify: async () => {
      const [rss, , own] = await idle([fastifyScript]);
      fastifyPrivate.push(own);
      return rss;
    },
  });
  // The warm-up round's figures are not kept.
  engineMb.shift();
  supervisorMb.shift();
  enginePrivate.shift();
  supervisorPrivate.shift();
  fastifyPrivate.shift();
  console.log(await loadNote());
  table([
    { process: 'engine process (idle)', 'RSS MB': describe(engineMb), 'private MB': describe(enginePrivate) },
    { process: 'engine process, a provider configured (model SDK warmed)', 'RSS MB': describe(s.provider), 'private MB': '' },
    { process: 'supervisor process', 'RSS MB': describe(supervisorMb), 'private MB': describe(supervisorPrivate) },
    { process: 'serve, both', 'RSS MB': describe(s.serve), 'private MB': '' },
    { process: 'bare ws server', 'RSS MB': describe(s.ws), 'private MB': '' },
    { process: 'bare Fastify hello-world', 'RSS MB': describe(s.fastify), 'private MB': describe(fastifyPrivate) },
  ]);
  result('idle engine process RSS', 'MB', engineMb, s.ws, { under: 70 });
  result('idle engine process RSS, a provider configured', 'MB', s.provider, s.ws, { under: 70 });
  result('supervisor RSS', 'MB', supervisorMb, s.ws, { under: 45 });
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
