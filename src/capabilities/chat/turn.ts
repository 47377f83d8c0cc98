/**
 * The turn processor: one turn of a session through the agent loop. It records the user message,
 * streams the reply as chat events (through the exit mask), saves what streams as partial records
 * so a crash keeps it, persists every message the loop makes in order, and ends the turn and its
 * ledger run with one outcome.
 */
import type { ModelMessage } from 'ai';
import { runAgent } from '../../agent/index.js';
import type { Bus } from '../../kernel/bus.js';
import { describeError } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import type { RunStatus } from '../../kernel/runs.js';
import { userMessage, type PendingTurn } from './input.js';
import type { RequestBuilder, ResolvedTurn } from './request.js';
import { repairContext, viewOf, type Session } from './session.js';
import { messageId, type Sessions } from './sessions.js';
import type { SessionRecord, TurnStatus } from './store.js';

export interface TurnDeps {
  bus: Bus;
  sessions: Sessions;
  request: RequestBuilder;
  log: (line: string) => void;
}

/** Runs one turn in `session` (busy, with `session.run` started) and returns its outcome. */
export function createTurnProcessor(deps: TurnDeps) {
  const { sessions, log } = deps;

  return async function executeTurn(session: Session, input: PendingTurn, resolved: ResolvedTurn): Promise<TurnStatus> {
    const { agent, client } = resolved;
    const run = session.run!;
    const runId = run.id;
    const emit = run.emit;
    let outcome: TurnStatus = 'failed';
    let error: string | undefined;
    let stopPartials: (() => void) | undefined;
    let detach: (() => void) | undefined;
    try {
      await sessions.load(session); // busy from here on, so it stays loaded until the turn ends
      const user: SessionRecord = { type: 'message', id: messageId(), ts: Date.now(), runId, message: userMessage(input), text: input.message };
      await sessions.record(
        session,
        { type: 'turn', ts: Date.now(), runId, status: 'started', agent: agent?.name, provider: client.provider, model: client.modelId },
        user,
      );
      const built = await deps.request.build(resolved, runId);
      const { request, window } = built;
      detach = built.detach;
      session.window = window;
      emit('chat.status', { sessionId: session.id, busy: true, status: 'busy', ...session.window });
      emit('chat.message', { sessionId: session.id, message: viewOf(user) });

      // Messages are persisted in the order the loop makes them; the chain is awaited before the turn ends.
      let writes = Promise.resolve();
      const persist = (...records: SessionRecord[]) => {
        const written = sessions.append(session, records);
        writes = writes.then(() => written).catch((err) => log(`could not save chat ${session.id}: ${describeError(err)}`));
      };
      let lastAssistant: Extract<SessionRecord, { type: 'message' }> | undefined;
      let reasoning = '';
      // The reply being streamed is saved every chatPartialFlushMs (only what is new), so a crash keeps it.
      const unsaved = { text: '', reasoning: '' };
      let flushTimer: NodeJS.Timeout | undefined;
      const flushPartial = () => {
        flushTimer = undefined;
        if (!unsaved.text && !unsaved.reasoning) return;
        persist({ type: 'partial', ts: Date.now(), runId, ...(unsaved.text ? { text: unsaved.text } : {}), ...(unsaved.reasoning ? { reasoning: unsaved.reasoning } : {}) });
        unsaved.text = unsaved.reasoning = '';
      };
      const streamed = (field: 'text' | 'reasoning', text: string) => {
        unsaved[field] += text;
        flushTimer ??= setTimeout(flushPartial, LIMITS.chatPartialFlushMs);
      };
      const stepSaved = () => {
        clearTimeout(flushTimer);
        flushTimer = undefined;
        unsaved.text = unsaved.reasoning = '';
      };
      // Deltas pass the exit mask as one stream: a stored value split across chunks is still masked.
      const textStream = deps.bus.redactor.stream();
      const reasoningStream = deps.bus.redactor.stream();
      const textOut = (text: string) => {
        if (!text) return;
        emit('chat.delta', { sessionId: session.id, text });
        streamed('text', text);
      };
      const reasoningOut = (text: string) => {
        if (!text) return;
        emit('chat.reasoning', { sessionId: session.id, text });
        streamed('reasoning', text);
      };
      const flushStreams = () => {
        textOut(textStream.flush());
        reasoningOut(reasoningStream.flush());
      };
      stopPartials = () => {
        flushStreams();
        stepSaved();
      };
      // A file write's diff rides on its tool.result event; it is saved with the tool message that answers the call.
      const diffs = new Map<string, string>();
      const toolEmit: typeof emit = (kind, payload) => {
        if (kind === 'tool.result' && typeof payload?.diff === 'string') diffs.set(String(payload.callId), payload.diff);
        emit(kind, payload);
      };
      const result = await runAgent({
        ...request,
        messages: repairContext(session.context),
        ctx: { signal: run.signal, emit: toolEmit, runId, agent: agent?.name, attended: true, depth: 0, sessionId: session.id },
        onDelta: (text) => textOut(textStream.push(text)),
        onReasoning: (text) => {
          reasoning += text;
          reasoningOut(reasoningStream.push(text));
        },
        onMessage: (message: ModelMessage) => {
          const r: SessionRecord = { type: 'message', id: messageId(), ts: Date.now(), runId, message };
          if (message.role === 'assistant') {
            flushStreams();
            stepSaved();
            if (reasoning) r.reasoning = reasoning;
            reasoning = '';
            lastAssistant = r;
          } else if (message.role === 'tool') {
            const own = message.content.flatMap((p) => (p.type === 'tool-result' && diffs.has(p.toolCallId) ? [p.toolCallId] : []));
            if (own.length) r.diffs = Object.fromEntries(own.map((id) => [id, diffs.get(id)!]));
            own.forEach((id) => diffs.delete(id));
          }
          persist(r);
        },
        onCompacted: (info, messages) => {
          // The loop's conversation is now [summary, ...kept]; replaying keeps that many stored messages.
          const keep = messages.length - 1;
          persist({ type: 'compaction', ts: Date.now(), runId, summary: info.summary, keep });
          emit('chat.compacted', { sessionId: session.id, replaced: info.replaced, kept: keep, tokensBefore: info.tokensBefore, tokensAfter: info.tokensAfter });
        },
        onContext: (tokens, window) => {
          session.contextTokens = tokens;
          emit('chat.context', { sessionId: session.id, tokens, window, fraction: Math.round((tokens / window) * 1000) / 1000 });
        },
      });
      flushStreams();
      stepSaved();
      await writes;
      outcome = result.status;
      error = result.error;
      if (lastAssistant) {
        const view = viewOf(lastAssistant);
        if (outcome !== 'completed') view.status = outcome as Exclude<TurnStatus, 'started' | 'completed'>;
        if (error) view.error = error;
        emit('chat.message', { sessionId: session.id, message: view });
      }
    } catch (err) {
      error = describeError(err);
      outcome = run.signal.aborted ? 'stopped' : 'failed';
    } finally {
      stopPartials?.();
      detach?.();
    }
    // A failed turn is an operator's concern too (no server at the provider's URL, a bad key): one line.
    if (outcome === 'failed') log(`chat: turn ${runId} in session ${session.id} failed: ${error ?? 'no reason given'}`);
    const turnEnd: SessionRecord = { type: 'turn', ts: Date.now(), runId, status: outcome, ...(error ? { error } : {}) };
    await sessions.record(session, turnEnd).catch((err) => log(`could not save chat ${session.id}: ${describeError(err)}`));
    const runStatus: Exclude<RunStatus, 'running' | 'interrupted'> = outcome === 'stopped' ? 'stopped' : outcome === 'failed' ? 'failed' : 'completed';
    // The session is idle before the run's end event, so a client reacting to run.* sees it free.
    session.busy = false;
    emit('chat.status', { sessionId: session.id, busy: false, status: 'idle', outcome, ...(error ? { error } : {}) });
    await run.finish(runStatus, { ...(error ? { error } : {}), ...(outcome === 'max_turns' ? { reason: 'max_turns' } : {}) });
    return outcome;
  };
}
