/**
 * Engine start-up with a long chat history: 1000 sessions of 30 tool-using turns (~157 MB of
 * session JSONL) against the same engine on an empty home, side by side, in-process
 * (`startEngine` to listening). Sessions load lazily from chat/index.json, so the history should
 * add little. The first start over the history (which builds the index) is shown apart.
 *
 *   node --import tsx bench/chat-sessions.bench.ts
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEngine } from '../src/engine.js';
import { fmt, median, result, table } from './lib/report.js';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1000);
const TURNS = 30;
const RUNS = 5;

function writeHistory(home: string): void {
  const dir = path.join(home, 'chat');
  mkdirSync(dir, { recursive: true });
  const read = 'lorem ipsum dolor sit amet '.repeat(150); // a 4 KB tool result a turn
  for (let s = 0; s < SESSIONS; s++) {
    const lines: unknown[] = [{ type: 'created', ts: 1 }];
    for (let t = 0; t < TURNS; t++) {
      const runId = `run-${s}-${t}`;
      lines.push({ type: 'turn', ts: 2, runId, status: 'started', provider: 'p', model: 'm' });
      lines.push({ type: 'message', id: `u${t}`, ts: 3, runId, message: { role: 'user', content: `question ${t}` }, text: `question ${t}` });
      lines.push({ type: 'message', id: `a${t}`, ts: 4, runId, message: { role: 'assistant', content: [{ type: 'text', text: 'Let me look.' }, { type: 'tool-call', toolCallId: `c${t}`, toolName: 'read_file', input: { path: 'x.ts' } }] } });
      lines.push({ type: 'message', id: `r${t}`, ts: 5, runId, message: { role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${t}`, toolName: 'read_file', output: { type: 'text', value: read } }] } });
      lines.push({ type: 'message', id: `b${t}`, ts: 6, runId, message: { role: 'assistant', content: [{ type: 'text', text: 'Here is what I found. '.repeat(20) }] } });
      lines.push({ type: 'turn', ts: 7, runId, status: 'completed' });
    }
    writeFileSync(path.join(dir, `s-${s}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  }
}

async function startOnce(home: string): Promise<{ ms: number; sessions: number }> {
  const started = performance.now();
  const engine = await startEngine({ home, port: 0, log: () => undefined, secretsBackend: 'file' });
  const ms = performance.now() - started;
  const { sessions } = (await (await fetch(engine.url + '/api/chat')).json()) as { sessions: unknown[] };
  await engine.close();
  return { ms, sessions: sessions.length };
}

const empty = mkdtempSync(path.join(os.tmpdir(), 'bench-chat-empty-'));
const full = mkdtempSync(path.join(os.tmpdir(), 'bench-chat-history-'));
try {
  writeHistory(full);
  await startOnce(empty); // warm-up (module loading)
  const first = await startOnce(full);
  if (first.sessions !== SESSIONS) throw new Error(`listed ${first.sessions} sessions, wrote ${SESSIONS}`);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    a.push((await startOnce(full)).ms);
    b.push((await startOnce(empty)).ms);
  }
  table([
    { home: `${SESSIONS} sessions x ${TURNS} turns, first start (builds chat/index.json)`, 'ms': fmt(first.ms, 1) },
    { home: `${SESSIONS} sessions x ${TURNS} turns (median of ${RUNS})`, 'ms': fmt(median(a), 1) },
    { home: `empty home (median of ${RUNS})`, 'ms': fmt(median(b), 1) },
  ]);
  // Aim: the history adds under 100 ms to start-up.
  result(`engine start with ${SESSIONS} chat sessions`, 'ms', a, b, { under: Math.round(median(b)) + 100 });
} finally {
  rmSync(empty, { recursive: true, force: true });
  rmSync(full, { recursive: true, force: true });
}
