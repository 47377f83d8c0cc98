#!/usr/bin/env node
// `npm start`: builds only when the sources are newer than the build, then serves (extra arguments
// go to `engine serve`, e.g. `npm start -- --port 8080`).
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { staleBecause } from './build-stale.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const why = staleBecause(root);
if (why) {
  process.stdout.write(`engine: building (${why})\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
// Ctrl-C reaches the engine from the terminal itself (one process group); this process waits for it
// to print its last line and passes its exit code on. A SIGTERM sent to this process is passed on.
const serve = spawn(process.execPath, [path.join(root, 'bin', 'engine.js'), 'serve', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => serve.kill('SIGTERM'));
serve.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
