/**
 * The queue: a message sent while its session is busy waits here and starts when the turn ends.
 * Starting a turn is synchronous up to marking the session busy, so two sends never both start.
 */
import { randomUUID } from 'node:crypto';
import type { Bus } from '../../kernel/bus.js';
import { badRequest, conflict, describeError, notFound } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import type { RunLedger } from '../../kernel/runs.js';
import type { PendingTurn, SendInput } from './input.js';
import type { RequestBuilder, ResolvedTurn } from './request.js';
import { defaultTitle, type Session } from './session.js';
import type { Sessions } from './sessions.js';
import type { TurnStatus } from './store.js';
import type { QueuedMessage } from './types.js';

export interface QueueDeps {
  bus: Bus;
  runs: RunLedger;
  sessions: Sessions;
  request: RequestBuilder;
  executeTurn(session: Session, input: PendingTurn, resolved: ResolvedTurn): Promise<TurnStatus>;
  log: (line: string) => void;
}

type Queued = QueuedMessage & { input: SendInput };

export type TurnQueue = ReturnType<typeof createTurnQueue>;

export function createTurnQueue(deps: QueueDeps) {
  const { bus, log } = deps;

  /** Starts the turn now when the session is free, else queues the message (answering its queue id). */
  function startOrQueue(session: Session, input: SendInput, resolved: ResolvedTurn): { queued?: true; id?: string } {
    if (!session.busy) {
      start(session, input, resolved);
      return {};
    }
    if (session.queue.length >= LIMITS.chatQueueMax) throw conflict(`session "${session.id}" already has ${LIMITS.chatQueueMax} queued messages; wait for the turn to end or cancel some`);
    const queued: Queued = { id: `q-${randomUUID().slice(0, 8)}`, message: input.message, queuedAt: Date.now(), input };
    session.queue.push(queued);
    bus.emit('chat.queued', { sessionId: session.id, id: queued.id, message: queued.message, position: session.queue.length });
    return { queued: true, id: queued.id };
  }

  /** Begins a turn; synchronous up to marking the session busy so two sends never both start. */
  function start(session: Session, input: PendingTurn, resolved: ResolvedTurn): void {
    session.busy = true;
    const { agent, client } = resolved;
    const run = deps.runs.start({ source: 'chat', sessionId: session.id, model: client.modelId, provider: client.provider, agent: agent?.name, title: session.title || defaultTitle(input.message) });
    session.run = run;
    session.turnDone = deps
      .executeTurn(session, input, resolved)
      .then((outcome) => {
        // However the turn was stopped (POST /api/chat/stop or POST /api/runs/<id>/stop), the queue holds.
        if (outcome === 'stopped') hold(session);
      })
      .catch((err) => log(`chat turn in ${session.id} failed unexpectedly: ${describeError(err)}`))
      .finally(() => {
        session.busy = false;
        session.run = undefined;
        void next(session);
      });
  }

  /** Starts the next queued message, if any. A message whose provider or agent vanished fails alone. */
  async function next(session: Session): Promise<void> {
    while (!session.busy && session.queue.length) {
      const queued = session.queue.shift() as Queued;
      bus.emit('chat.queue.removed', { sessionId: session.id, id: queued.id, reason: 'started' });
      try {
        const input = { ...queued.input, message: queued.message, queueId: queued.id };
        const resolved = await deps.request.resolve(input);
        if (session.busy) {
          session.queue.unshift(queued);
          return;
        }
        start(session, input, resolved);
      } catch (err) {
        bus.emit('chat.status', { sessionId: session.id, busy: false, status: 'idle', outcome: 'failed', error: describeError(err), queueId: queued.id });
      }
    }
  }

  /** Takes every queued message out of the queue and hands its text back (`chat.queue.removed`, reason `stopped`). */
  function hold(session: Session): Array<{ id: string; message: string }> {
    const unqueued = session.queue.splice(0).map(({ id, message }) => ({ id, message }));
    for (const q of unqueued) bus.emit('chat.queue.removed', { sessionId: session.id, id: q.id, message: q.message, reason: 'stopped' });
    return unqueued;
  }

  function find(sessionId: unknown, queueId: unknown) {
    const session = deps.sessions.existing(sessionId);
    if (typeof queueId !== 'string' || !queueId) throw badRequest('id is required: the queued message id from chat.queued');
    const index = session.queue.findIndex((q) => q.id === queueId);
    if (index < 0) throw notFound(`no queued message "${queueId}" in session "${session.id}" (it may have started already)`);
    return { session, index };
  }

  function edit(body: unknown) {
    const b = (body ?? {}) as Record<string, unknown>;
    const { session, index } = find(b.sessionId, b.id);
    if (typeof b.message !== 'string' || !b.message.trim()) throw badRequest('message is required: the new text');
    if (b.message.length > LIMITS.chatMessageChars) throw badRequest(`message is too long; the limit is ${LIMITS.chatMessageChars} characters`);
    session.queue[index].message = b.message;
    bus.emit('chat.queue.updated', { sessionId: session.id, id: session.queue[index].id, message: b.message });
    return { ok: true };
  }

  function cancel(sessionId: unknown, queueId: unknown) {
    const { session, index } = find(sessionId, queueId);
    const [removed] = session.queue.splice(index, 1);
    bus.emit('chat.queue.removed', { sessionId: session.id, id: removed.id, reason: 'canceled' });
    return { ok: true };
  }

  return { startOrQueue, hold, edit, cancel };
}
