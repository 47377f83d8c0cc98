import assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { formatDiagnostics, parseTsc } from '../../src/capabilities/shell/diagnostics.js';
import { createShellService, type ShellService } from '../../src/capabilities/shell/service.js';
import { Fence } from '../../src/kernel/fence.js';

const fenceOver = (workspace: string, mounts: Record<string, string> = {}) =>
  new Fence(workspace, () => Object.entries(mounts).map(([name, p]) => ({ name, path: p, kind: 'mount' as const })));

let dir: string;
let shell: ShellService;

before(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'diag-test-')));
  const ws = path.join(dir, 'ws');
  const proj = path.join(dir, 'proj');
  const plain = path.join(dir, 'plain');
  await mkdir(path.join(ws, 'src'), { recursive: true });
  await mkdir(path.join(proj, 'src'), { recursive: true });
  await mkdir(plain, { recursive: true });
  const tsconfig = JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', types: [] }, include: ['src'] });
  await writeFile(path.join(ws, 'tsconfig.json'), tsconfig);
  await writeFile(path.join(ws, 'src', 'ok.ts'), 'export const n: number = 1;\n');
  await writeFile(path.join(proj, 'tsconfig.json'), tsconfig);
  await writeFile(path.join(proj, 'src', 'bad.ts'), 'export const n: number = "one";\nexport function f(x) { return x; }\n');
  await writeFile(path.join(plain, 'notes.md'), '# notes\n');
  shell = createShellService({ fence: fenceOver(ws, { proj, plain }), home: dir });
});
after(() => rm(dir, { recursive: true, force: true }));

test('a TypeScript root with errors: lines severity file:line:col - message, paths virtual', async () => {
  const report = await shell.diagnostics('proj');
  assert.equal(report.checker, 'tsc (bundled with the engine)');
  assert.equal(report.total, 2);
  assert.deepEqual(
    report.diagnostics.map((d) => [d.severity, d.file, d.line, d.col, d.code]),
    [
      ['error', 'proj/src/bad.ts', 1, 14, 'TS2322'],
      ['error', 'proj/src/bad.ts', 2, 19, 'TS7006'],
    ],
  );
  const text = formatDiagnostics(report);
  assert.match(text, /^error proj\/src\/bad\.ts:1:14 - Type 'string' is not assignable to type 'number'\. \(TS2322\)$/m);
  assert.match(report.summary, /2 errors/);
});

test('a clean TypeScript root says so', async () => {
  const report = await shell.diagnostics('workspace');
  assert.equal(report.total, 0);
  assert.match(report.summary, /^Clean: tsc .* found no problems in root "workspace"/);
});

test('a root with no known checker is answered plainly', async () => {
  const report = await shell.diagnostics('plain');
  assert.equal(report.checker, null);
  assert.deepEqual(report.diagnostics, []);
  assert.match(report.summary, /No known checker for root "plain"/);
});

test('an unknown root is a 404', async () => {
  await assert.rejects(shell.diagnostics('nope'), (e: any) => e.status === 404);
});

test('the cap keeps 100 and counts the rest', async () => {
  const root = { name: 'workspace', path: '/r', kind: 'workspace' as const };
  const lines = Array.from({ length: 130 }, (_, i) => `src/a.ts(${i + 1},1): error TS2304: Cannot find name 'x${i}'.`).join('\n');
  const all = parseTsc(lines + '\nerror TS5058: The specified path does not exist.\n  continued detail', root);
  assert.equal(all.length, 131);
  assert.equal(all[130].file, 'tsconfig.json');
  assert.match(all[130].message, /continued detail$/);
  const text = formatDiagnostics({ root: 'workspace', checker: 'tsc', diagnostics: all.slice(0, 100), total: 131, omitted: 31, summary: 's' });
  assert.equal(text.split('\n').filter((l) => l.startsWith('error ')).length, 100);
  assert.match(text, /\.\.\. and 31 more diagnostics not shown \(cap 100\)\.$/);
});
