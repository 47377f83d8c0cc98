/**
 * PUT /api/files/<path>: a 4 KB file four folders deep, rewritten for SECONDS a round by keep-alive
 * raw-socket writers (bench/lib/http-load.ts, in a process of its own: no `fetch`, whose own cost
 * per request is the same on both sides and pulls every ratio toward 1). The engine (guard,
 * schema, fence, folder pinned and proven, temp file + fsync + rename, the file.written event)
 * against a bare node:http server doing the same asynchronous open/write/fsync/close/rename with no
 * fence. Cases: one writer; eight writers to eight files; eight writers to one file (the engine
 * queues writes to one file, so the last rename is the last write received; the bare server's
 * overlap); and the same-file queue at depth 1, 8 and 32, to show the engine's cost per write does
 * not grow with the queue. Rounds alternate engine and bare (ABBA); medians and spread. Each round
 * also reads each server process's CPU per write from /proc (BENCH_CASES=1,2 runs only those cases).
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startFixture } from './lib/child.js';
import { startLoadGenerator } from './lib/http-load.js';
import { fmt, median, result, table } from './lib/report.js';
import { alternate, describe, loadNote } from './lib/rounds.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const DIR = 'a/b/c/d';
const CONTENT = 'x'.repeat(4096);
const files = (n: number) => Array.from({ length: n }, (_, i) => `${DIR}/file-${i}.txt`);

const home = await mkdtemp(path.join(os.tmpdir(), 'bench-write-'));
const engineWs = path.join(home, 'workspace');
const bareWs = path.join(home, 'bare');
for (const ws of [engineWs, bareWs]) {
  await mkdir(path.join(ws, DIR), { recursive: true });
  for (const f of files(8)) await writeFile(path.join(ws, f), CONTENT);
}
const engine = await startFixture('engine-server.ts', { BENCH_HOME: home });
const bare = await startFixture('baseline-write.ts', { WORKSPACE: bareWs });
const load = await startLoadGenerator();
const body = JSON.stringify({ content: CONTENT });

/** CPU seconds a process has used (all its threads: main, thread pool, watcher), from /proc. */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 10 ms
};
/** CPU ms per write of each round, by server and case: a cost the machine's load moves far less than the wall clock. */
const cpuPerWrite = new Map<string, number[]>();

/** Writes per second of one round: `writers` connections over `paths`; the server's CPU per write is kept aside. */
const round = (server: { port: number; child: { pid?: number } }, name: string, writers: number, paths: string[]) => async () => {
  const cpu0 = cpuSeconds(server.child.pid!);
  const r = await load.run({ port: server.port, method: 'PUT', path: '', paths: paths.map((p) => `/api/files/${p}`), body, connections: writers, seconds: SECONDS });
  if (r.errors) throw new Error(`port ${server.port}: ${r.errors} PUTs did not answer 200`);
  const key = `${server.port} ${name}`;
  cpuPerWrite.set(key, [...(cpuPerWrite.get(key) ?? []), ((cpuSeconds(server.child.pid!) - cpu0) * 1000) / r.requests]);
  return r.rps;
};
const all = [
  { name: 'one writer', writers: 1, paths: files(1) },
  { name: 'eight writers, eight files', writers: 8, paths: files(8) },
  { name: 'eight writers, one file', writers: 8, paths: files(1) },
  { name: 'thirty-two writers, one file', writers: 32, paths: files(1) },
];
// BENCH_CASES=1,3: only those cases (counted from 1), e.g. while profiling one.
const only = process.env.BENCH_CASES?.split(',').map(Number);
const cases = all.filter((_, i) => !only || only.includes(i + 1));
try {
  const rows: Array<Record<string, string>> = [];
  const samples: Record<string, { engine: number[]; bare: number[] }> = {};
  for (const c of cases) {
    const s = await alternate(ROUNDS, { engine: round(engine, c.name, c.writers, c.paths), bare: round(bare, c.name, c.writers, c.paths) });
    samples[c.name] = s;
    const cpu = (server: { port: number }) => fmt(median(cpuPerWrite.get(`${server.port} ${c.name}`)!.slice(1)), 3);
    rows.push({ case: c.name, 'engine writes/s': describe(s.engine, 0), 'bare writes/s': describe(s.bare, 0), ratio: (median(s.engine) / median(s.bare)).toFixed(2), 'CPU ms/write engine / bare': `${cpu(engine)} / ${cpu(bare)}` });
  }
  console.log(await loadNote());
  table(rows);
  // The queue table and the RESULT lines need every case (BENCH_CASES runs a subset).
  if (cases.length === all.length) {
    // The same-file queue: time per write at each depth, a flat line meaning no cost grows with the
    // queue (the CPU per write is in the table above).
    const perWrite = (xs: number[]) => fmt(1000 / median(xs), 2);
    table(
      [
        ['1', 'one writer'],
        ['8', 'eight writers, one file'],
        ['32', 'thirty-two writers, one file'],
      ].map(([depth, name]) => ({ 'one file, queue depth': depth, 'engine ms/write': perWrite(samples[name].engine), 'bare ms/write': perWrite(samples[name].bare) })),
    );
    result('PUT /api/files, 4 KB, fsync atomic, one writer', 'writes/s', samples['one writer'].engine, samples['one writer'].bare, { ratioAtLeast: 0.8 });
    result('PUT /api/files, eight writers to eight files', 'writes/s', samples['eight writers, eight files'].engine, samples['eight writers, eight files'].bare, { ratioAtLeast: 0.8 });
    // Same-file writes are queued by design: the aim is a cost per write that stays flat with the
    // queue, read as the engine's CPU per write (the wall clock swings with the disk and the load).
    const engineCpu = (name: string) => cpuPerWrite.get(`${engine.port} ${name}`)!.slice(1);
    result('PUT /api/files, one file, engine CPU ms/write at queue 32 against queue 1', 'ms', engineCpu('thirty-two writers, one file'), engineCpu('one writer'), { ratioAtMost: 1.2 });
  }
} finally {
  await Promise.all([engine.stop(), bare.stop(), load.stop()]);
  await rm(home, { recursive: true, force: true });
}
