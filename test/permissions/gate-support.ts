/** A real engine with stand-in tools for the gate tests, its /events collector, and tool calls started in the background. */
import type { EngineEvent } from '../../src/kernel/bus.js';
import type { AnyTool } from '../../src/tools/types.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

export async function startGateEngine(...tools: AnyTool[]): Promise<{ t: TestEngine; events: EventCollector; close(): Promise<void> }> {
  const t = await startTestEngine();
  const events = await collectEvents(t.url);
  t.engine.tools.register(...tools);
  return {
    t,
    events,
    async close() {
      events.close();
      await t.close();
    },
  };
}

let callSeq = 0;
/** Starts a call in the background inside a fresh run: the run, the call id, the pending outcome, and `done` to finish the run. */
export function backgroundCall(t: TestEngine, name: string, args: Record<string, unknown>, opts: { attended?: boolean; sessionId?: string } = {}) {
  const run = t.engine.runs.start({ source: 'test' });
  const callId = `call-${++callSeq}`;
  const outcome = t.engine.tools.call(
    { callId, name, args },
    { signal: run.signal, emit: run.emit, runId: run.id, attended: opts.attended ?? true, sessionId: opts.sessionId },
  );
  return { run, callId, outcome, done: async () => run.finish('completed') };
}

export const requested = (callId: string) => (e: EngineEvent) => e.kind === 'permission.requested' && e.callId === callId;
