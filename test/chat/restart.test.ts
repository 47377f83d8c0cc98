/**
 * A session busy when the engine died comes back not busy, its partial turn marked interrupted, and
 * the next turn works. The engine is a real child process killed with SIGKILL mid-turn.
 */
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, it } from 'node:test';
import { repairContext } from '../../src/capabilities/chat/session.js';
import { collectEvents } from '../support/events.js';
import { startTestEngine, tempDir } from '../support/engine.js';
import { startModelServer } from '../support/model-server.js';
import { until } from '../support/patience.js';
import { spawnNode, type Spawned } from '../support/process.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** The engine process alone (no supervisor), so SIGKILL leaves it dead. */
async function spawnEngine(home: string): Promise<{ child: Spawned; url: string }> {
  const child = spawnNode(['src/main.ts', '__engine'], { ENGINE_HOME: home, ENGINE_PORT: '0', ENGINE_GATEWAY_PORT: '0' });
  cleanups.push(() => child.child.exitCode === null && child.kill('SIGKILL'));
  const { match } = await child.waitForLine(/serving (http:\/\/\S+)\/api/, { timeoutMs: 30_000 });
  return { child, url: match[1] };
}

const call = async (url: string, method: string, route: string, body?: unknown) => {
  const res = await fetch(url + route, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: (await res.json()) as any };
};

it('a session busy when the engine died comes back idle with its turn marked interrupted', async () => {
  const home = await tempDir();
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const model = await startModelServer();
  cleanups.push(() => model.close());

  const { child, url } = await spawnEngine(home);
  const put = await call(url, 'PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: model.baseUrl, model: 'm' }], defaultProvider: 'scripted' });
  assert.equal(put.status, 200);
  const events = await collectEvents(url);
  model.script({ text: 'I was saying something', hang: true });
  assert.equal((await call(url, 'POST', '/api/chat', { sessionId: 'mid', message: 'tell me a story' })).status, 202);
  const started = await events.waitFor('run.started', 30_000);
  await events.waitFor((e) => e.kind === 'chat.delta' && String(e.text).includes('something'), 30_000);
  events.close();
  // The reply being streamed is saved every chatPartialFlushMs; wait until it is on disk, then kill.
  const file = path.join(home, 'chat', 'mid.jsonl');
  await until('the partial reply on disk', async () => /"type":"partial"[^\n]*something/.test(await readFile(file, 'utf8').catch(() => '')));
  child.kill('SIGKILL');
  await child.exited;

  const t = await startTestEngine({ home });
  cleanups.push(() => t.close());
  const session = await t.api('GET', '/api/chat/mid?view=full');
  assert.equal(session.status, 200);
  assert.equal(session.body.busy, false);
  const turns = session.body.transcript.filter((r: any) => r.type === 'turn');
  assert.deepEqual(turns.map((r: any) => r.status), ['started', 'interrupted']);
  assert.equal(turns[1].runId, started.runId);
  // The partial reply survived, marked interrupted.
  assert.deepEqual(session.body.messages.map((m: any) => m.text), ['tell me a story', 'I was saying something']);
  assert.equal(session.body.messages[1].status, 'interrupted');
  assert.ok(!session.body.transcript.some((r: any) => r.type === 'partial'), 'partial records are not shown');
  const runs = await t.api('GET', '/api/runs');
  assert.equal(runs.body.runs.find((r: any) => r.runId === started.runId).status, 'interrupted');
  const list = await t.api('GET', '/api/chat');
  assert.equal(list.body.sessions.find((s: any) => s.id === 'mid').busy, false);

  // The next turn works and carries the earlier message.
  const ev = await collectEvents(t.url);
  cleanups.push(() => ev.close());
  model.script({ text: 'welcome back' });
  assert.equal((await t.api('POST', '/api/chat', { sessionId: 'mid', message: 'go on' })).status, 202);
  const end = await ev.waitFor((e) => e.kind === 'run.completed' || e.kind === 'run.failed', 30_000);
  assert.equal(end.kind, 'run.completed', String(end.error));
  assert.match(JSON.stringify(model.requests.at(-1)!.body), /tell me a story[\s\S]*I was saying something[\s\S]*go on/);
});

it('repairs a conversation whose last tool calls never got results', () => {
  const repaired = repairContext([
    { role: 'user', content: 'x' },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: {} }, { type: 'tool-call', toolCallId: 'c2', toolName: 'grep', input: {} }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: 'ok' } }] },
    { role: 'user', content: 'y' },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c3', toolName: 'grep', input: {} }] },
  ]);
  assert.equal(repaired.length, 6);
  assert.deepEqual((repaired[2].content as any[]).map((p) => p.toolCallId), ['c1', 'c2']);
  assert.equal(repaired[5].role, 'tool');
  assert.match((repaired[5].content as any[])[0].output.value, /interrupted/);
});
