/** A real engine on a test clock, wired to the scripted model, with a workspace file and a SQLite row to protect. */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineEvent } from '../../src/kernel/bus.js';
import { TestClock } from '../support/clock.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

export const T0 = Date.parse('2026-03-02T08:59:58Z');

export interface AuthorshipHarness {
  t: TestEngine;
  model: ModelServer;
  events: EventCollector;
  clock: TestClock;
  /** The workspace file a model must not get deleted. */
  file(name: string): string;
  fileExists(name: string): Promise<boolean>;
  /** The `body` of row 1 of table `notes` in connection `main`. */
  row(): Promise<string>;
  /** Sends a chat message and resolves once the turn's run has started. */
  chat(sessionId: string, message: string, mode?: 'ask' | 'allow'): Promise<void>;
  /** Answers the next permission prompt of `sessionId` (after `afterSeq`), returning it. */
  answer(decision: 'allow' | 'deny', afterSeq: number, sessionId?: string): Promise<EngineEvent>;
  /** Waits for the end of a workflow's next run after `afterSeq`. */
  runEnd(workflowId: string, afterSeq: number): Promise<EngineEvent>;
  turnEnd(sessionId: string, afterSeq: number): Promise<EngineEvent>;
  seq(): number;
  /** PUT of the whole document, as the workbench saves a reviewed workflow. */
  personSaves(id: string, change?: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

export async function startAuthorship(opts: { home?: string; keepHome?: boolean; clock?: TestClock; model?: ModelServer } = {}): Promise<AuthorshipHarness> {
  const model = opts.model ?? (await startModelServer());
  const clock = opts.clock ?? new TestClock(T0);
  const t = await startTestEngine({ clock, ...(opts.home ? { home: opts.home } : {}), keepHome: opts.keepHome });
  const put = await t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: model.baseUrl, model: 'scripted-model', newKey: 'sk-test-key-123' }], defaultProvider: 'scripted' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  if (!opts.home) {
    assert.equal((await t.api('PUT', '/api/db/connections/main', { engine: 'sqlite', path: 'app.db', writable: true })).status, 200);
    const q = await t.api('POST', '/api/db/main/query', { sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'kept')" });
    assert.equal(q.body.ok, true, JSON.stringify(q.body));
  }
  const events = await collectEvents(t.url);
  const waitFor = events.waitFor.bind(events);
  events.waitFor = (match, timeoutMs = 30_000) => waitFor(match, timeoutMs);
  const file = (name: string) => path.join(t.home, 'workspace', name);
  const h: AuthorshipHarness = {
    t,
    model,
    events,
    clock,
    file,
    fileExists: (name) => readFile(file(name)).then(
      () => true,
      () => false,
    ),
    async row() {
      const q = await t.api('POST', '/api/db/main/query', { sql: 'SELECT body FROM notes WHERE id = 1' });
      return JSON.stringify(q.body);
    },
    async chat(sessionId, message, mode = 'ask') {
      const res = await t.api('POST', '/api/chat', { sessionId, message, permissionMode: mode });
      assert.ok(res.status < 300, JSON.stringify(res.body));
    },
    async answer(decision, afterSeq, sessionId) {
      const asked = await events.waitFor((e) => e.kind === 'permission.requested' && e.seq > afterSeq && (sessionId === undefined || e.sessionId === sessionId));
      const res = await t.api('POST', '/api/permissions/resolve', { runId: asked.runId, callId: asked.callId, decision, scope: 'once' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return asked;
    },
    async runEnd(workflowId, afterSeq) {
      const started = await events.waitFor((e) => e.kind === 'run.started' && e.workflowId === workflowId && e.seq > afterSeq);
      return events.waitFor((e) => e.runId === started.runId && /^run\.(completed|failed|stopped)$/.test(e.kind));
    },
    async turnEnd(sessionId, afterSeq) {
      const started = await events.waitFor((e) => e.kind === 'run.started' && e.sessionId === sessionId && e.seq > afterSeq);
      return events.waitFor((e) => e.runId === started.runId && /^run\.(completed|failed|stopped)$/.test(e.kind));
    },
    seq: () => events.events.at(-1)?.seq ?? 0,
    async personSaves(id, change = {}) {
      const got = await t.api('GET', `/api/workflows/${id}`);
      assert.equal(got.status, 200);
      const { author: _a, warnings: _w, ...doc } = got.body;
      const res = await t.api('PUT', `/api/workflows/${id}`, { ...doc, ...change });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    },
    async close() {
      events.close();
      await t.close();
      if (!opts.model) await model.close();
    },
  };
  return h;
}

export const writeWorkspaceFile = (h: AuthorshipHarness, name: string, text = 'precious\n') => writeFile(h.file(name), text);
