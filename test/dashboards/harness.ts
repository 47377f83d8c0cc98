/** A real engine wired to the scripted model server and an event collector, for the dashboard tests. */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineEvent } from '../../src/kernel/bus.js';
import type { EngineOptions } from '../../src/engine.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

export interface DashHarness {
  t: TestEngine;
  model: ModelServer;
  events: EventCollector;
  /** Starts a build and waits for its run to end; returns the run id and its end event. */
  build(id: string): Promise<{ runId: string; end: EngineEvent }>;
  /** Waits for the end event of a run. */
  ended(runId: string): Promise<EngineEvent>;
  /** Writes a file into the engine's workspace. */
  workspaceFile(name: string, content: string): Promise<void>;
  close(): Promise<void>;
}

export async function startDashboards(options: Partial<EngineOptions> = {}): Promise<DashHarness> {
  const model = await startModelServer();
  const t = await startTestEngine({ files: { watch: false }, ...options });
  const put = await t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: model.baseUrl, model: 'scripted-model', newKey: 'sk-test' }], defaultProvider: 'scripted' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const events = await collectEvents(t.url);
  const ended = (runId: string) => events.waitFor((e) => e.runId === runId && /^run\.(completed|failed|stopped)$/.test(e.kind), 30_000);
  return {
    t,
    model,
    events,
    ended,
    async build(id) {
      const res = await t.api('POST', `/api/dashboards/${id}/run`);
      assert.equal(res.status, 202, JSON.stringify(res.body));
      return { runId: res.body.runId, end: await ended(res.body.runId) };
    },
    workspaceFile: (name, content) => writeFile(path.join(t.home, 'workspace', name), content),
    async close() {
      events.close();
      await t.close();
      await model.close();
    },
  };
}

/** The text of the tool result a model request carried for a call id (OpenAI wire format). */
export function toolResult(body: any, callId: string): string {
  const m = (body.messages as any[]).find((x) => x.role === 'tool' && x.tool_call_id === callId);
  return typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content);
}

export const salesDashboard = {
  name: 'Sales',
  icon: '📈',
  description: 'How sales go this week',
  layout: 3,
  slots: [
    { id: 'total', title: 'Total this week', type: 'stat' },
    { id: 'by-day', title: 'Sales by day', type: 'chart', span: 2 },
    { id: 'top', title: 'Top customers', type: 'table', span: 2 },
    { id: 'notes', title: 'Notes', type: 'markdown' },
  ],
  prompt: 'Read sales.csv and show the week.',
};
