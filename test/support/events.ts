/**
 * A WebSocket client on /events that collects every frame and can wait for one matching a predicate.
 */
import WebSocket from 'ws';
import type { EngineEvent } from '../../src/kernel/bus.js';
import { patience } from './patience.js';

export interface EventCollector {
  events: EngineEvent[];
  /** Resolves with the first collected event (past or future) matching `match`; `timeoutMs` (quiet-machine ms, scaled) only bounds a hang. */
  waitFor(match: string | ((e: EngineEvent) => boolean), timeoutMs?: number): Promise<EngineEvent>;
  kinds(): string[];
  close(): void;
}

export async function collectEvents(baseUrl: string, opts: { headers?: Record<string, string>; query?: string } = {}): Promise<EventCollector> {
  const ws = new WebSocket(baseUrl.replace(/^http/, 'ws') + '/events' + (opts.query ?? ''), { headers: opts.headers });
  const events: EngineEvent[] = [];
  const waiters: Array<{ test: (e: EngineEvent) => boolean; resolve: (e: EngineEvent) => void }> = [];
  ws.on('message', (data) => {
    const event = JSON.parse(String(data)) as EngineEvent;
    events.push(event);
    for (const w of [...waiters]) {
      if (w.test(event)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(event);
      }
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused with ${res.statusCode}`)));
  });
  return {
    events,
    kinds: () => events.map((e) => e.kind),
    waitFor(match, quietMs = 30_000) {
      const timeoutMs = patience(quietMs);
      const test = typeof match === 'string' ? (e: EngineEvent) => e.kind === match : match;
      const found = events.find(test);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no event matching ${String(match)} within ${timeoutMs} ms; saw ${events.map((e) => e.kind).join(', ')}`)), timeoutMs);
        waiters.push({ test, resolve: (e) => (clearTimeout(timer), resolve(e)) });
      });
    },
    close: () => ws.close(),
  };
}
