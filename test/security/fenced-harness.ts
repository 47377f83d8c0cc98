/**
 * A real engine for the fenced-reader attacks (issue 38 §1): the scripted model as the chat provider,
 * a deterministic embeddings server behind the semantic index, the real watcher, the real sandbox
 * under run_shell, and the secrets the attacks aim at (the file key, the sealed store, settings.json,
 * /etc/hostname). What the model and the embeddings endpoint were ever sent is kept, so a test can say
 * a secret never left the engine.
 */
import assert from 'node:assert/strict';
import { readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineEvent } from '../../src/kernel/bus.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { startFakeEmbeddings, type FakeEmbeddings } from '../support/fake-embeddings.js';
import { startModelServer, type ModelServer, type ScriptStep } from '../support/model-server.js';

export interface FencedHarness {
  t: TestEngine;
  model: ModelServer;
  embeddings: FakeEmbeddings;
  events: EventCollector;
  /** The engine home, real path. */
  home: string;
  /** `<home>/workspace`. */
  ws: string;
  /** Texts that must never reach a model or the embeddings endpoint, by what they are. */
  secrets: Record<string, string>;
  lastSeq(): number;
  /** One chat turn of the scripted model (ask mode): the steps are its answers, in order. */
  turn(sessionId: string, steps: ScriptStep[], extra?: Record<string, unknown>): Promise<EngineEvent>;
  /** A chat turn in which the model writes `script` as plant.sh and runs `npm test` (allowed by the rule, sandboxed). */
  plant(sessionId: string, script: string): Promise<EngineEvent>;
  /** Turns on the semantic index and waits for its first build. */
  index(): Promise<void>;
  /**
   * Waits for the index job that follows event `seq` to end; with `witness`, for the one by which that
   * file was embedded (a file the same command wrote after its links: their watcher batch is done too).
   */
  indexed(seq: number, witness?: string): Promise<EngineEvent>;
  /** Everything any model request and the embeddings endpoint were sent, as one text. */
  sent(): string;
  /** The `search_code` results the model was shown (tool results of search_code calls). */
  searchResults(): string[];
  /** The paths the index chunked (every embeddings input starts with its file's path). */
  embeddedPaths(): Set<string>;
  /** Asserts that no secret (and no extra text given) is in what models and the embeddings endpoint saw. */
  assertNothingLeaked(extra?: string[]): void;
  /**
   * The editor helpers on each path (apply from the disk and with the editor's own buffer, complete,
   * inline edit): each refused with one sentence matching `reason`, and no model is asked.
   */
  editorRefused(paths: string[], reason: RegExp): Promise<void>;
  close(): Promise<void>;
}

const PROVIDER = (baseUrl: string) => ({ type: 'openai-compatible', name: 'scripted', baseUrl, model: 'scripted-model', newKey: 'sk-test-key-123' });

export async function startFencedHarness(): Promise<FencedHarness> {
  const model = await startModelServer();
  const embeddings = await startFakeEmbeddings();
  const t = await startTestEngine();
  const home = await realpath(t.home);
  const ws = path.join(home, 'workspace');
  const events = await collectEvents(t.url);
  // A stored secret makes the sealed store and its key file; a settings change writes settings.json.
  assert.equal((await t.api('POST', '/api/secrets', { name: 'otter', value: 'otter-secret-value-4711' })).status, 200);
  assert.equal((await t.api('PUT', '/api/settings', { chatMaxTurns: 37 })).status, 200);
  const sealed = await readFile(path.join(home, 'secrets.enc.json'), 'utf8');
  const secrets = {
    'secrets.key': (await readFile(path.join(home, 'secrets.key'), 'utf8')).trim(),
    'secrets.enc.json': [...sealed.matchAll(/[A-Za-z0-9+/=]{16,}/g)].map((m) => m[0]).sort((a, b) => b.length - a.length)[0],
    'settings.json': (await readFile(path.join(home, 'settings.json'), 'utf8')).match(/"chatMaxTurns":\s*37/)![0],
  };
  assert.ok(secrets['secrets.key'].length >= 40 && secrets['secrets.enc.json'].length >= 16, JSON.stringify(secrets));
  assert.equal((await t.api('PUT', '/api/config', { providers: [PROVIDER(model.baseUrl)], defaultProvider: 'scripted' })).status, 200);
  // The common rule of the attack: `npm test` is allowed (it runs in the sandbox); nothing else is. The
  // project's test script runs plant.sh, which the model writes with write_file.
  assert.equal((await t.api('POST', '/api/permissions/rule', { key: 'run_shell(npm test:*)', decision: 'allow' })).status, 200);
  await writeFile(path.join(ws, 'package.json'), JSON.stringify({ name: 'victim', private: true, scripts: { test: 'sh plant.sh' } }));

  const lastSeq = () => events.events.at(-1)?.seq ?? 0;
  const toolResults = (tool: string) =>
    model.requests.flatMap((r) => {
      const messages = (r.body?.messages ?? []) as Array<{ role: string; tool_call_id?: string; content?: unknown }>;
      const calls = new Map(messages.flatMap((m: any) => (m.tool_calls ?? []).map((c: any) => [c.id, c.function?.name])));
      return messages.filter((m) => m.role === 'tool' && calls.get(m.tool_call_id) === tool).map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
    });
  const h: FencedHarness = {
    t,
    model,
    embeddings,
    events,
    home,
    ws,
    secrets,
    lastSeq,
    async turn(sessionId, steps, extra = {}) {
      model.script(...steps);
      const seq = lastSeq();
      const res = await t.api('POST', '/api/chat', { sessionId, message: 'go on', ...extra });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      const started = await events.waitFor((e) => e.kind === 'run.started' && e.sessionId === sessionId && e.seq > seq, 60_000);
      const end = await events.waitFor((e) => e.runId === started.runId && (/^run\.(completed|failed|stopped)$/.test(e.kind) || e.kind === 'permission.requested'), 120_000);
      assert.notEqual(end.kind, 'permission.requested', `the turn asked a person: ${JSON.stringify(end)}`);
      assert.equal(end.kind, 'run.completed', String(end.error));
      return end;
    },
    async plant(sessionId, script) {
      const end = await h.turn(sessionId, [
        { toolCalls: [{ name: 'write_file', args: { path: 'plant.sh', content: `set -e\n${script}\n` } }] },
        { toolCalls: [{ name: 'run_shell', args: { command: 'npm test' } }] },
        { text: 'tests pass' },
      ]);
      const exec = events.events.find((e) => e.kind === 'shell.exec' && e.runId === end.runId);
      assert.ok(exec, 'npm test ran');
      assert.equal((await t.api('GET', '/api/status')).body.sandbox.active, true, 'in the sandbox');
      return end;
    },
    async index() {
      const seq = lastSeq();
      const put = await t.api('PUT', '/api/config', { providers: [PROVIDER(model.baseUrl)], defaultProvider: 'scripted', embeddings: { baseUrl: embeddings.baseUrl, model: 'fake-embed' } });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      await h.indexed(seq);
    },
    indexed: (seq, witness) => events.waitFor((e) => e.seq > seq && (e.kind === 'index.failed' || (e.kind === 'index.completed' && (!witness || h.embeddedPaths().has(witness)))), 120_000),
    sent: () => JSON.stringify(model.requests.map((r) => r.body)) + '\n' + embeddings.inputs.join('\n'),
    searchResults: () => toolResults('search_code'),
    embeddedPaths: () => new Set(embeddings.inputs.map((i) => i.split(/[\s\n]/)[0])),
    assertNothingLeaked(extra = []) {
      const sent = h.sent();
      for (const [what, text] of [...Object.entries(secrets), ...extra.map((x) => [x, x])]) assert.equal(sent.includes(text), false, `${what} reached a model or the embeddings endpoint`);
    },
    async editorRefused(paths, reason) {
      assert.equal((await t.api('PUT', '/api/settings', { completions: { enabled: true, provider: null } })).status, 200);
      const before = model.requests.length;
      const sentence = (text: unknown, what: string) => {
        assert.match(String(text), reason, what);
        assert.doesNotMatch(String(text), /\n|[.!?] [A-Z]/, `${what}: one sentence`);
      };
      // A buffer the splice cannot place the snippet in: without the refusal, apply would ask the model tier.
      const snippet = '// ... existing code ...\nexport const added = 1;\n// ... existing code ...\n';
      for (const p of paths) {
        for (const base of [undefined, 'const buffer = 1;\n']) {
          const applied = await t.api('POST', '/api/apply', { path: p, snippet, base });
          assert.equal(applied.status, 200, JSON.stringify(applied.body));
          assert.equal(applied.body.merged, null, `apply ${p}: ${JSON.stringify(applied.body)}`);
          sentence(applied.body.reason, `apply ${p}${base ? ' with the buffer' : ''}`);
        }
        const completed = await t.api('POST', '/api/complete', { path: p, prefix: 'const key = ', suffix: '' });
        assert.equal(completed.status, 200, JSON.stringify(completed.body));
        assert.equal(completed.body.text, null, `complete ${p}: ${JSON.stringify(completed.body)}`);
        sentence(completed.body.reason, `complete ${p}`);
        const inline = await t.api('POST', '/api/inline-edit', { path: p, code: 'const key = 1;', instruction: 'make it shorter' });
        assert.ok(inline.status >= 400 && inline.status < 500, `inline-edit ${p}: ${inline.status} ${JSON.stringify(inline.body)}`);
        sentence(inline.body.error, `inline-edit ${p}`);
      }
      assert.equal(model.requests.length, before, 'an editor helper asked a model');
    },
    async close() {
      events.close();
      await t.close();
      await model.close();
      await embeddings.close();
    },
  };
  return h;
}
