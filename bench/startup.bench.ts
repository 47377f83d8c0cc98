/**
 * Engine start to first 200: spawn the built CLI (the bundle `npm run build` makes and `npm start`
 * runs: supervisor + engine process) with a fresh home and poll GET /api/status until it answers
 * 200. Baseline: the same for a bare node:http server script. Also shown: the engine process alone
 * and the unbundled tsc output. Builds go to .bench-tmp/.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BENCH_DIR } from './lib/child.js';
import { fmt, median, result, table } from './lib/report.js';

const ROOT = path.resolve(BENCH_DIR, '..');
const OUT = path.join(ROOT, '.bench-tmp');
const DIST = path.join(OUT, 'dist');
const RUNS = 7;

const build = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', DIST, '--sourceMap', 'false'], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (build.status !== 0) throw new Error('the build failed');
const BUNDLE = path.join(OUT, 'bundle');
const bundled = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'bundle.mjs'), BUNDLE], { cwd: ROOT, stdio: 'inherit' });
if (bundled.status !== 0) throw new Error('the bundle failed');

const baselineScript = path.join(OUT, 'baseline-start.mjs');
writeFileSync(
  baselineScript,
  `import http from 'node:http';
http.createServer((req, res) => { res.writeHead(200, {'content-type': 'application/json'}); res.end('{"ok":true}'); })
  .listen(Number(process.env.ENGINE_PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));\n`,
);

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

async function firstOk(args: string[], holdMs = 0): Promise<number> {
  const port = await freePort();
  const home = mkdtempSync(path.join(os.tmpdir(), 'engine-start-'));
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: { ...process.env, ENGINE_PORT: String(port), ENGINE_HOME: home }, stdio: 'ignore' });
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
    rmSync(home, { recursive: true, force: true });
  }
}

const rows: Array<Record<string, string>> = [];
const sides = [
  { name: 'engine serve (bundle: supervisor + engine)', args: [path.join(BUNDLE, 'main.js'), 'serve'], ms: [] as number[] },
  { name: 'engine process alone (bundle)', args: [path.join(BUNDLE, 'main.js'), '__engine'], ms: [] as number[] },
  { name: 'engine serve (unbundled tsc output)', args: [path.join(DIST, 'main.js'), 'serve'], ms: [] as number[] },
  { name: 'bare node:http', args: [baselineScript], ms: [] as number[] },
];
// One unmeasured start writes the bundle's V8 code cache, as the first start after an install does.
await firstOk(sides[0].args, 3000);
for (let i = 0; i < RUNS; i++) for (const s of sides) s.ms.push(await firstOk(s.args));
for (const s of sides) rows.push({ what: s.name, 'median ms': fmt(median(s.ms), 1), 'min ms': fmt(Math.min(...s.ms), 1), 'max ms': fmt(Math.max(...s.ms), 1) });
table(rows);
result('engine start to first 200', 'ms', median(sides[0].ms), median(sides[3].ms), { under: 300 });
