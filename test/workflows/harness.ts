/** A real engine with a temp home, an /events collector and workflow helpers over real HTTP. */
import assert from 'node:assert/strict';
import type { EngineEvent } from '../../src/kernel/bus.js';
import type { EngineOptions } from '../../src/engine.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

export interface WfHarness {
  t: TestEngine;
  events: EventCollector;
  save(doc: Record<string, unknown>): Promise<void>;
  /** Starts a manual run and returns its id. */
  run(id: string, payload?: unknown): Promise<string>;
  /** Waits for the run's end event. */
  end(runId: string): Promise<EngineEvent>;
  /** The run's log through GET /api/runs/<runId>/events. */
  log(runId: string): Promise<EngineEvent[]>;
  close(): Promise<void>;
}

export const wf = (id: string, nodes: unknown[], edges: unknown[] = [], extra: Record<string, unknown> = {}) => ({ id, formatVersion: 2, group: null, nodes, edges, ...extra });

export async function startWf(options: Partial<EngineOptions> = {}): Promise<WfHarness> {
  const t = await startTestEngine(options);
  const events = await collectEvents(t.url);
  const waitFor = events.waitFor.bind(events);
  // Generous: these tests must hold on a loaded 2-core machine.
  events.waitFor = (match, timeoutMs = 30_000) => waitFor(match, timeoutMs);
  return {
    t,
    events,
    async save(doc) {
      const res = await t.api('PUT', `/api/workflows/${doc.id}`, doc);
      assert.equal(res.status, 200, JSON.stringify(res.body));
    },
    async run(id, payload) {
      const res = await t.api('POST', `/api/runs/${id}`, payload === undefined ? {} : { payload });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      return res.body.runId as string;
    },
    end: (runId) => events.waitFor((e) => e.runId === runId && /^run\.(completed|failed|stopped)$/.test(e.kind)),
    async log(runId) {
      const res = await t.api('GET', `/api/runs/${runId}/events`);
      assert.equal(res.status, 200);
      return res.body.events;
    },
    async close() {
      events.close();
      await t.close();
    },
  };
}

/** The events of one kind for a node. */
export const of = (events: EngineEvent[], kind: string, nodeId?: string) => events.filter((e) => e.kind === kind && (nodeId === undefined || e.nodeId === nodeId));
