/**
 * Scale curves of one chat session (issue 34) at 100, 1k and 10k messages: loading it (the first
 * GET /api/chat/<id> after a start: read the file, replay it), a page of it once loaded (?limit=50,
 * newest and far back) and the whole message list, and compaction's own work around the model call
 * (where to cut, the transcript the summariser reads, the new context's size). The session file is
 * written straight to chat/<id>.jsonl in the engine's record format (turns of a user question, a
 * tool call, its result and an answer); each size checks the engine counts every message.
 * Expected: load and the whole list linear, a page flat, compaction linear.
 *
 * Times are CPU time of the one process (engine and client, every thread: bench/lib/scale-home.ts
 * says why), medians.
 *
 *   SCALE=0.1 node --import tsx bench/scale-chat.bench.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ModelMessage } from 'ai';
import { compactionCut, estimateTokens, renderTranscript, summaryMessage } from '../src/agent/compaction.js';
import { type Curve, printCurve, sizes } from './lib/curve.js';
import { cpuMs, eachSize, engineAt, get, getJson, heapMb, medianCpuMs } from './lib/scale-home.js';

const SIZES = sizes([100, 1_000, 10_000]);
const SESSION = 'long-session';
const T0 = Date.UTC(2026, 0, 1);

/** `n` messages in turns of four: the question, a tool call, its result, the answer. */
function records(n: number): unknown[] {
  const out: unknown[] = [{ type: 'created', ts: T0 }];
  const result = 'line of a file the assistant read\n'.repeat(20);
  for (let t = 0; t < n / 4; t++) {
    const runId = `run-${T0 + t}-${t + 1}`;
    const ts = T0 + t * 1000;
    out.push({ type: 'turn', ts, runId, status: 'started', provider: 'p', model: 'm' });
    out.push({ type: 'message', id: `u${t}`, ts, runId, message: { role: 'user', content: `question ${t}: what does module ${t % 50} do?` }, text: `question ${t}: what does module ${t % 50} do?` });
    out.push({ type: 'message', id: `a${t}`, ts, runId, message: { role: 'assistant', content: [{ type: 'text', text: 'Let me read it.' }, { type: 'tool-call', toolCallId: `c${t}`, toolName: 'read_file', input: { path: `src/m${t % 50}.ts` } }] } });
    out.push({ type: 'message', id: `r${t}`, ts, runId, message: { role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${t}`, toolName: 'read_file', output: { type: 'text', value: result } }] } });
    out.push({ type: 'message', id: `b${t}`, ts, runId, message: { role: 'assistant', content: [{ type: 'text', text: `Module ${t % 50} parses the input and hands it on. `.repeat(4) }] } });
    out.push({ type: 'turn', ts, runId, status: 'completed' });
  }
  return out;
}

/** Messages a client sees in `records` (users and assistants). */
const shown = (recs: unknown[]) => recs.filter((r: any) => r.type === 'message' && r.message.role !== 'tool').length;

const curves = {
  load: { path: 'chat session load (first GET after start)', unit: 'msgs', expected: 'linear', points: [] } as Curve,
  page: { path: 'GET /api/chat/<id>?limit=50 (newest page)', unit: 'msgs', expected: 'flat', points: [] } as Curve,
  back: { path: 'GET /api/chat/<id>?limit=50&before= (oldest page)', unit: 'msgs', expected: 'flat', points: [] } as Curve,
  whole: { path: 'GET /api/chat/<id> (every message)', unit: 'msgs', expected: 'linear', points: [] } as Curve,
  compact: { path: 'compaction, engine share (cut, transcript, size)', unit: 'msgs', expected: 'linear', points: [] } as Curve,
};

await eachSize('chat', SIZES, async (n, home, warm) => {
  const recs = records(n);
  mkdirSync(path.join(home, 'chat'), { recursive: true });
  writeFileSync(path.join(home, 'chat', `${SESSION}.jsonl`), recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const visible = shown(recs);

  // Load: a fresh engine each time, so the session is read from its file.
  const loads: number[] = [];
  let loadedMb = 0;
  // Three timed loads, then one measured for memory (a collection just before a timed call slows it).
  for (let i = 0; i < 4; i++) {
    const engine = await engineAt(home);
    try {
      const { sessions } = await getJson(engine, '/api/chat');
      if (sessions[0]?.messageCount !== visible) throw new Error(`the engine counts ${sessions[0]?.messageCount} messages of ${visible} written`);
      if (i === 3) {
        const before = heapMb();
        await get(engine, `/api/chat/${SESSION}?limit=50`);
        loadedMb = heapMb() - before;
        continue;
      }
      loads.push(await cpuMs(() => get(engine, `/api/chat/${SESSION}?limit=50`)));
      if (i < 2) continue;
      const page = await getJson(engine, `/api/chat/${SESSION}?limit=50`);
      if (page.messages.length !== Math.min(50, visible) || page.messages.at(-1).id !== (recs.filter((r: any) => r.type === 'message').at(-1) as { id: string }).id) throw new Error('the newest page is not the last 50 messages');
      const oldest = (await getJson(engine, `/api/chat/${SESSION}`)).messages[Math.min(50, visible - 1)].id;
      if (!warm) {
        curves.page.points.push({ size: n, ms: await medianCpuMs(() => get(engine, `/api/chat/${SESSION}?limit=50`), 9) });
        curves.back.points.push({ size: n, ms: await medianCpuMs(() => get(engine, `/api/chat/${SESSION}?limit=50&before=${oldest}`), 9) });
        curves.whole.points.push({ size: n, ms: await medianCpuMs(() => get(engine, `/api/chat/${SESSION}`), 5) });
      }
    } finally {
      await engine.close();
    }
  }
  loads.sort((a, b) => a - b);
  if (!warm) curves.load.points.push({ size: n, ms: loads[1], mb: loadedMb });

  // Compaction around the model call, on the conversation as the model sees it.
  const context = recs.filter((r: any) => r.type === 'message').map((r: any) => r.message as ModelMessage);
  const compactMs = await medianCpuMs(() => {
    const tokensBefore = estimateTokens(context);
    const cut = compactionCut(context, 2);
    const prompt = renderTranscript(context.slice(0, cut));
    const next = [summaryMessage(`summary of ${prompt.length} characters`), ...context.slice(cut)];
    return tokensBefore + estimateTokens(next);
  }, 21);
  if (!warm) curves.compact.points.push({ size: n, ms: compactMs });
});
console.log('(MB: heap the loaded session holds)');
for (const c of Object.values(curves)) printCurve(c);
