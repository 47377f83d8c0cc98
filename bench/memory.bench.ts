/**
 * Idle memory: the built CLI's `serve` (supervisor + engine process) on a fresh home, answered one
 * GET /api/status, then left idle past the warm-ups (IDLE_S seconds); resident set size of each
 * process from /proc. Baseline: a bare `ws` server on node:http (plain node, no tsx) answering the
 * same route and holding an /events socket server, started and measured the same way; a bare
 * Fastify hello-world is shown for context. Rounds alternate; medians with spread. Linux only.
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
const children = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);

const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-mem-'));
const cache = path.join(tmp, 'cache');

/** Starts `args`, waits for a 200, idles, and returns [own RSS, first child's RSS or 0] in MB. */
async function idle(args: string[]): Promise<[number, number]> {
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
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const kids = children(child.pid!);
    return [rssMb(child.pid!), kids.length ? rssMb(kids[0]) : 0];
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
  const s = await alternate(ROUNDS, {
    serve: async () => {
      const [sup, eng] = await idle(serve);
      supervisorMb.push(sup);
      engineMb.push(eng);
      return sup + eng;
    },
    ws: async () => (await idle([wsScript]))[0],
    fastify: async () => (await idle([fastifyScript]))[0],
  });
  // The warm-up round's figures are not kept.
  engineMb.shift();
  supervisorMb.shift();
  console.log(await loadNote());
  table([
    { process: 'engine process (idle)', 'RSS MB': describe(engineMb) },
    { process: 'supervisor process', 'RSS MB': describe(supervisorMb) },
    { process: 'serve, both', 'RSS MB': describe(s.serve) },
    { process: 'bare ws server', 'RSS MB': describe(s.ws) },
    { process: 'bare Fastify hello-world', 'RSS MB': describe(s.fastify) },
  ]);
  result('idle engine process RSS', 'MB', engineMb, s.ws, { under: 70 });
  result('supervisor RSS', 'MB', supervisorMb, s.ws, { under: 45 });
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
