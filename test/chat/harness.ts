/** A real engine wired to the scripted model server, an event collector and a few test tools. */
import { defineTool, type ToolDefinition } from '../../src/tools/types.js';
import type { EngineEvent } from '../../src/kernel/bus.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

export type WireType = 'openai-compatible' | 'anthropic';
export const WIRE_TYPES: WireType[] = ['openai-compatible', 'anthropic'];

export interface ChatHarness {
  t: TestEngine;
  model: ModelServer;
  events: EventCollector;
  /** Tool activity in order: `start:<name>:<arg>` / `end:<name>:<arg>`. */
  trace: string[];
  send(sessionId: string, message: string, extra?: Record<string, unknown>): Promise<{ status: number; body: any }>;
  /** Waits for the turn's run to end (any run.* end event for a chat run of that session after `after` seq). */
  turnEnd(sessionId: string, afterSeq?: number): Promise<EngineEvent>;
  lastSeq(): number;
  close(): Promise<void>;
}

export async function startChat(type: WireType, opts: { home?: string; contextWindow?: number } = {}): Promise<ChatHarness> {
  const model = await startModelServer();
  const t = await startTestEngine(opts.home ? { home: opts.home } : {});
  const provider: Record<string, unknown> = { type, name: 'scripted', baseUrl: model.baseUrl, model: 'scripted-model', newKey: 'sk-test-key-123' };
  if (opts.contextWindow) provider.contextWindow = opts.contextWindow;
  const put = await t.api('PUT', '/api/config', { providers: [provider], defaultProvider: 'scripted' });
  if (put.status !== 200) throw new Error(`PUT /api/config answered ${put.status}: ${JSON.stringify(put.body)}`);
  const events = await collectEvents(t.url);
  // Generous waits: these tests must hold on a loaded 2-core machine.
  const waitFor = events.waitFor.bind(events);
  events.waitFor = (match, timeoutMs = 30_000) => waitFor(match, timeoutMs);
  const trace: string[] = [];
  registerTestTools(t, trace);
  return {
    t,
    model,
    events,
    trace,
    send: (sessionId, message, extra = {}) => t.api('POST', '/api/chat', { sessionId, message, ...extra }),
    lastSeq: () => events.events.at(-1)?.seq ?? 0,
    async turnEnd(sessionId, afterSeq = 0) {
      const started = await events.waitFor((e) => e.kind === 'run.started' && e.sessionId === sessionId && e.seq > afterSeq);
      return events.waitFor((e) => e.runId === started.runId && /^run\.(completed|failed|stopped)$/.test(e.kind));
    },
    async close() {
      events.close();
      await t.close();
      await model.close();
    },
  };
}

function registerTestTools(t: TestEngine, trace: string[]): void {
  /** A test tool over one `path` argument. */
  const pathTool = (name: string, description: string, run: ToolDefinition<{ path: string }>['run'], readOnly = false) =>
    defineTool<{ path: string }>({
      name,
      group: 'test',
      readOnly,
      description,
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      permission: 'other',
      run,
    });
  t.engine.tools.register(
    pathTool(
      'test_look',
      'Reads a test thing.',
      async ({ path }) => {
        trace.push(`start:look:${path}`);
        await new Promise((r) => setTimeout(r, 150)); // long enough that the three reads overlap even on a loaded machine
        trace.push(`end:look:${path}`);
        return `seen ${path}`;
      },
      true,
    ),
    pathTool('test_put', 'Writes a test thing.', async ({ path }) => {
      trace.push(`start:put:${path}`);
      trace.push(`end:put:${path}`);
      return `put ${path}`;
    }),
    pathTool('test_wait', 'Waits until stopped.', async ({ path }, ctx) => {
      trace.push(`start:wait:${path}`);
      await new Promise<void>((resolve) => {
        if (ctx.signal.aborted) return resolve();
        ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      trace.push(`end:wait:${path}`);
      return 'stopped waiting';
    }),
    defineTool<{ command: string }>({
      name: 'test_danger',
      group: 'test',
      description: 'Runs arbitrary code (asks permission).',
      parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
      permission: 'code',
      run: async ({ command }) => {
        trace.push(`ran:danger:${command}`);
        return `ran ${command}`;
      },
    }),
  );
}
