/**
 * Chat: sessions, turns and the queue. A turn is a run in the ledger (source `chat`) driving the
 * one agent loop; its reply streams as chat events, its messages are appended to the session file
 * as they are made. A message sent while the session is busy waits in the queue and runs when the
 * turn ends.
 */
import { randomUUID } from 'node:crypto';
import type { ImagePart, ModelMessage, TextPart } from 'ai';
import { runAgent } from '../../agent/index.js';
import type { Bus } from '../../kernel/bus.js';
import { badRequest, conflict, describeError, notFound } from '../../kernel/errors.js';
import type { Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import type { RunLedger, RunStatus } from '../../kernel/runs.js';
import type { ProviderService } from '../../providers/service.js';
import type { ModelClient } from '../../providers/types.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { AppSettings } from '../settings/types.js';
import { DEFAULT_CHAT_SYSTEM } from './prompt.js';
import { defaultTitle, repairContext, Session, viewOf } from './session.js';
import type { SessionSnapshot, SessionWindow } from './session.js';
import { ChatStore, type SessionRecord, type TurnStatus } from './store.js';
import type { ChatGateHooks, PermissionMode, QueuedMessage, ResolveAgent, ResolvedAgent } from './types.js';
import type { DashboardTurn, ResolveDashboard } from '../dashboards/types.js';

export interface ChatServiceDeps {
  home: Home;
  bus: Bus;
  runs: RunLedger;
  tools: ToolRegistry;
  providers: ProviderService;
  settings: { get(): Pick<AppSettings, 'chatMaxTurns' | 'compactFraction'> };
  /** The permission gate's chat hooks (reads each session's mode; releases prompts on allow). */
  gate?: ChatGateHooks;
  resolveAgent?: ResolveAgent;
  /** Extra system-prompt blocks of a turn that names no agent (the workspace skills); wired by the composition root. */
  promptBlocks?: () => Promise<string[]>;
  log?: (line: string) => void;
}

/** What POST /api/chat carries (validated by parseSend). */
export interface SendInput {
  sessionId: string;
  message: string;
  context?: unknown;
  provider?: string;
  images?: unknown[];
  agent?: string;
  /** A dashboard the turn is about: its block joins the system prompt, its tools the turn (dashboards capability). */
  dashboard?: string;
  permissionMode?: PermissionMode;
}

interface PendingTurn extends SendInput {
  queueId?: string;
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** Static route segments under /api/chat that a session id must not shadow. */
const RESERVED_IDS = new Set(['queue', 'mode', 'stop']);

export type ChatService = ReturnType<typeof createChatService>;

export function createChatService(deps: ChatServiceDeps) {
  const store = new ChatStore(deps.home, deps.bus.redactor.json);
  const sessions = new Map<string, Session>();
  let resolveAgent = deps.resolveAgent;
  let promptBlocks = deps.promptBlocks;
  let resolveDashboard: ResolveDashboard | undefined;
  const openDashboard: ResolveDashboard = (id) => (resolveDashboard ? resolveDashboard(id) : Promise.reject(notFound(`unknown dashboard "${id}"; dashboards are not available`)));
  const log = deps.log ?? (() => undefined);

  /**
   * Reads every session's summary: from the index when the file has not grown since, else by
   * replaying what was appended after the indexed size (or the whole file). Transcripts load on
   * first use. A turn that was in flight when the engine died is marked interrupted.
   */
  async function init(): Promise<void> {
    const index = await store.readIndex();
    const files = await store.files();
    let stale = files.length !== Object.keys(index).length;
    for (const { id, size } of files) {
      const entry = index[id];
      let session: Session;
      if (entry?.size === size) {
        session = Session.fromSnapshot(id, entry, size);
      } else if (entry && entry.size < size) {
        stale = true;
        session = Session.fromSnapshot(id, entry, size);
        for (const r of await store.read(id, entry.size)) session.apply(r);
      } else {
        stale = true;
        session = Session.fromSnapshot(id, { title: '', createdAt: 0, updatedAt: 0, messageCount: 0, selection: {}, openTurns: [] }, size);
        for (const r of await store.read(id)) session.apply(r);
      }
      sessions.set(id, session);
      const open = session.unfinishedTurns();
      if (open.length) {
        await load(session);
        await markInterrupted(session, open);
      }
    }
    deps.gate?.setModeLookup((sessionId) => sessions.get(sessionId)?.mode);
    if (stale) await saveIndex();
  }

  /** Reads a session's transcript and context into memory (once; concurrent callers share the read). */
  const loading = new Map<string, Promise<void>>();
  async function load(session: Session): Promise<Session> {
    session.lastUsed = Date.now();
    if (session.loaded) return session;
    let pending = loading.get(session.id);
    if (!pending) {
      pending = store.read(session.id).then((records) => {
        if (!session.loaded) session.reload(records);
      });
      loading.set(session.id, pending);
      void pending.finally(() => loading.delete(session.id)).catch(() => undefined);
    }
    await pending;
    evictIdle();
    return session;
  }

  /** Keeps at most chatSessionsLoaded transcripts in memory: the idle ones used longest ago are dropped. */
  function evictIdle(): void {
    const loaded = [...sessions.values()].filter((s) => s.loaded && s.persisted && !s.busy && !loading.has(s.id));
    if (loaded.length <= LIMITS.chatSessionsLoaded) return;
    loaded.sort((a, b) => a.lastUsed - b.lastUsed);
    for (const s of loaded.slice(0, loaded.length - LIMITS.chatSessionsLoaded)) s.unload();
  }

  /** The index is a cache of summaries; it is written a moment after changes and on close. */
  let indexTimer: NodeJS.Timeout | undefined;
  let indexWrite: Promise<void> = Promise.resolve();
  function scheduleIndex(): void {
    indexTimer ??= setTimeout(() => void saveIndex(), LIMITS.chatIndexFlushMs);
  }
  function saveIndex(): Promise<void> {
    clearTimeout(indexTimer);
    indexTimer = undefined;
    const entries: Record<string, SessionSnapshot & { size: number }> = {};
    for (const s of sessions.values()) if (s.persisted) entries[s.id] = { ...s.snapshot(), size: s.bytes };
    indexWrite = indexWrite.then(() => store.writeIndex(entries)).catch((err) => log(`could not save the chat index: ${describeError(err)}`));
    return indexWrite;
  }

  /** Applies records in memory and appends them to the session file, counting their bytes for the index. */
  function append(session: Session, records: SessionRecord[]): Promise<void> {
    for (const r of records) session.apply(r);
    const text = store.encode(records);
    session.bytes += Buffer.byteLength(text);
    scheduleIndex();
    return store.appendText(session.id, text);
  }

  /**
   * A turn in flight when the engine died: the reply it had streamed (saved as partial records)
   * becomes its last message, calls it left without results get an "interrupted" result (so the
   * next turn is valid to send), and the turn is marked interrupted.
   */
  async function markInterrupted(session: Session, open: string[]): Promise<void> {
    const now = Date.now();
    const deadRunId = open.at(-1)!;
    const saved: SessionRecord[] = [];
    const partial = session.partial;
    if (partial && open.includes(partial.runId) && (partial.text || partial.reasoning)) {
      const message: ModelMessage = { role: 'assistant', content: [{ type: 'text', text: partial.text }] };
      saved.push({ type: 'message', id: messageId(), ts: now, runId: partial.runId, message, ...(partial.reasoning ? { reasoning: partial.reasoning } : {}) });
    }
    const context = [...session.context, ...saved.map((r) => (r as { message: ModelMessage }).message)];
    for (const message of repairContext(context).slice(context.length)) saved.push({ type: 'message', id: messageId(), ts: now, runId: deadRunId, message });
    for (const runId of open) saved.push({ type: 'turn', ts: now, runId, status: 'interrupted', error: 'the engine stopped while this turn was in flight' });
    await append(session, saved);
  }

  function checkSessionId(id: unknown): string {
    if (typeof id !== 'string' || !id) throw badRequest('sessionId is required: a name of letters, digits, dot, dash or underscore');
    if (id.length > LIMITS.chatSessionIdChars || !SESSION_ID.test(id) || RESERVED_IDS.has(id)) {
      throw badRequest(`sessionId "${id.slice(0, 60)}" is not valid; use up to ${LIMITS.chatSessionIdChars} letters, digits, dots, dashes or underscores (not queue, mode or stop)`);
    }
    return id;
  }

  /** A known session (not loaded: enough for stop and the queue, which only a busy, loaded session has). */
  function existing(id: unknown): Session {
    const sessionId = checkSessionId(id);
    const session = sessions.get(sessionId);
    // A session exists once its first record is written (or while its first turn is starting).
    if (!session || (!session.persisted && !session.busy)) throw notFound(`no chat session "${sessionId}"; GET /api/chat lists the sessions (POST /api/chat starts one)`);
    return session;
  }

  /** A session with its transcript in memory, created when new. */
  function getOrCreate(id: string): Promise<Session> {
    let session = sessions.get(id);
    if (!session) {
      session = new Session(id);
      sessions.set(id, session);
    }
    return load(session);
  }

  /** Appends records to the session file (creating it first) and applies them in memory. */
  async function record(session: Session, ...records: SessionRecord[]): Promise<void> {
    const all: SessionRecord[] = session.persisted ? records : [{ type: 'created', ts: session.createdAt }, ...records];
    session.persisted = true;
    await append(session, all);
  }

  function parseSend(body: unknown): SendInput {
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('send a JSON object {sessionId, message, context?, provider?, images?, agent?, permissionMode?}');
    const b = body as Record<string, unknown>;
    const sessionId = checkSessionId(b.sessionId);
    if (typeof b.message !== 'string' || !b.message.trim()) throw badRequest('message is required: the text to send');
    if (b.message.length > LIMITS.chatMessageChars) throw badRequest(`message is too long (${b.message.length} characters); the limit is ${LIMITS.chatMessageChars}`);
    for (const key of ['provider', 'agent', 'dashboard'] as const) {
      if (b[key] !== undefined && b[key] !== null && typeof b[key] !== 'string') throw badRequest(`${key} must be a string (a name)`);
    }
    if (b.permissionMode !== undefined && b.permissionMode !== 'ask' && b.permissionMode !== 'allow') throw badRequest('permissionMode must be "ask" or "allow"');
    if (b.images !== undefined && (!Array.isArray(b.images) || b.images.length > LIMITS.chatImagesMax)) throw badRequest(`images must be an array of at most ${LIMITS.chatImagesMax} data URLs or {data, mediaType} objects`);
    const images = b.images as unknown[] | undefined;
    images?.forEach((img, i) => imagePart(img, i)); // validates now, so a bad image is a 400, not a failed turn
    return {
      sessionId,
      message: b.message,
      context: b.context ?? undefined,
      provider: (b.provider as string) || undefined,
      images,
      agent: (b.agent as string) || undefined,
      dashboard: (b.dashboard as string) || undefined,
      permissionMode: b.permissionMode as PermissionMode | undefined,
    };
  }

  async function resolveTurn(input: SendInput): Promise<{ agent?: ResolvedAgent; client: ModelClient }> {
    let agent: ResolvedAgent | undefined;
    if (input.agent) {
      if (!resolveAgent) throw notFound(`unknown agent "${input.agent}"; no agents are defined (PUT /api/agents/<name> creates one)`);
      agent = await resolveAgent(input.agent);
    }
    const client = await deps.providers.resolve(agent?.provider ?? input.provider, agent?.model);
    if (input.dashboard) await openDashboard(input.dashboard); // an unknown one is the caller's 404 now
    return { agent, client };
  }

  /** POST /api/chat: starts a turn, or queues the message when the session is busy. */
  async function send(body: unknown): Promise<{ ok: true; queued?: boolean; id?: string }> {
    const input = parseSend(body);
    // Resolve before answering so an unknown agent or provider is the caller's error now, not a failed turn later.
    const resolved = await resolveTurn(input);
    const session = await getOrCreate(input.sessionId);
    if (input.permissionMode) await applyMode(session, input.permissionMode);
    if (session.busy) {
      if (session.queue.length >= LIMITS.chatQueueMax) throw conflict(`session "${session.id}" already has ${LIMITS.chatQueueMax} queued messages; wait for the turn to end or cancel some`);
      const queued: QueuedMessage & { input: SendInput } = { id: `q-${randomUUID().slice(0, 8)}`, message: input.message, queuedAt: Date.now(), input };
      session.queue.push(queued);
      deps.bus.emit('chat.queued', { sessionId: session.id, id: queued.id, message: queued.message, position: session.queue.length });
      return { ok: true, queued: true, id: queued.id };
    }
    startTurn(session, input, resolved);
    return { ok: true };
  }

  /** Begins a turn; synchronous up to marking the session busy so two sends never both start. */
  function startTurn(session: Session, input: PendingTurn, resolved: { agent?: ResolvedAgent; client: ModelClient }): void {
    session.busy = true;
    const { agent, client } = resolved;
    const run = deps.runs.start({ source: 'chat', sessionId: session.id, model: client.modelId, provider: client.provider, agent: agent?.name, title: session.title || defaultTitle(input.message) });
    session.run = run;
    session.turnDone = executeTurn(session, input, agent, client)
      .then((outcome) => {
        // However the turn was stopped (POST /api/chat/stop or POST /api/runs/<id>/stop), the queue holds.
        if (outcome === 'stopped') holdQueue(session);
      })
      .catch((err) => log(`chat turn in ${session.id} failed unexpectedly: ${describeError(err)}`))
      .finally(() => {
        session.busy = false;
        session.run = undefined;
        void next(session);
      });
  }

  async function executeTurn(session: Session, input: PendingTurn, agent: ResolvedAgent | undefined, client: ModelClient): Promise<TurnStatus> {
    const run = session.run!;
    const runId = run.id;
    const emit = run.emit;
    let outcome: TurnStatus = 'failed';
    let error: string | undefined;
    let stopPartials: (() => void) | undefined;
    let dashboard: DashboardTurn | undefined;
    try {
      if (input.dashboard) dashboard = await openDashboard(input.dashboard);
      await load(session); // busy from here on, so it stays loaded until the turn ends
      const user: SessionRecord = { type: 'message', id: messageId(), ts: Date.now(), runId, message: userMessage(input), text: input.message };
      await record(
        session,
        { type: 'turn', ts: Date.now(), runId, status: 'started', agent: agent?.name, provider: client.provider, model: client.modelId },
        user,
      );
      session.window = windowNote(client, agent);
      emit('chat.status', { sessionId: session.id, busy: true, status: 'busy', ...session.window });
      emit('chat.message', { sessionId: session.id, message: viewOf(user) });

      // Messages are persisted in the order the loop makes them; the chain is awaited before the turn ends.
      let writes = Promise.resolve();
      const persist = (...records: SessionRecord[]) => {
        const written = append(session, records);
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
      const settings = deps.settings.get();
      const result = await runAgent({
        model: client,
        system: [agent?.system ?? (await plainSystem()), dashboard?.block].filter(Boolean).join('\n\n'),
        messages: repairContext(session.context),
        tools: dashboard ? dashboard.attach(runId, deps.tools) : deps.tools,
        allowlist: agent?.tools ? new Set([...agent.tools, ...(dashboard?.tools ?? [])]) : undefined,
        ctx: { signal: run.signal, emit, runId, agent: agent?.name, attended: true, depth: 0, sessionId: session.id },
        maxTurns: agent?.maxTurns ?? settings.chatMaxTurns,
        settings: agent?.settings,
        compaction: { fraction: settings.compactFraction },
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
      dashboard?.detach(runId);
    }
    // A failed turn is an operator's concern too (no server at the provider's URL, a bad key): one line.
    if (outcome === 'failed') log(`chat: turn ${runId} in session ${session.id} failed: ${error ?? 'no reason given'}`);
    const turnEnd: SessionRecord = { type: 'turn', ts: Date.now(), runId, status: outcome, ...(error ? { error } : {}) };
    await record(session, turnEnd).catch((err) => log(`could not save chat ${session.id}: ${describeError(err)}`));
    const runStatus: Exclude<RunStatus, 'running' | 'interrupted'> = outcome === 'stopped' ? 'stopped' : outcome === 'failed' ? 'failed' : 'completed';
    // The session is idle before the run's end event, so a client reacting to run.* sees it free.
    session.busy = false;
    emit('chat.status', { sessionId: session.id, busy: false, status: 'idle', outcome, ...(error ? { error } : {}) });
    await run.finish(runStatus, { ...(error ? { error } : {}), ...(outcome === 'max_turns' ? { reason: 'max_turns' } : {}) });
    return outcome;
  }

  /**
   * The window the turn runs in and, when the tool definitions alone fill more than a quarter of
   * it, a warning (a small local model offered every tool has little room left for the work).
   */
  function windowNote(client: ModelClient, agent: ResolvedAgent | undefined): SessionWindow {
    const tools = deps.tools.visible(agent?.tools ? new Set(agent.tools) : undefined);
    const toolTokens = Math.ceil(tools.reduce((n, t) => n + JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters }).length, 0) / 4);
    const note: SessionWindow = { contextWindow: client.contextWindow, contextWindowSource: client.contextWindowSource ?? 'config', toolTokens };
    if (toolTokens > LIMITS.toolDefinitionsWarnFraction * client.contextWindow) {
      const where = note.contextWindowSource === 'server' ? 'as the server reports it' : note.contextWindowSource === 'default' ? 'the default; set contextWindow on the provider if it is smaller' : 'from the provider entry';
      note.warning =
        `the ${tools.length} tool definitions alone take about ${toolTokens} tokens, more than a quarter of this model's ${client.contextWindow}-token context window (${where}); ` +
        'use a model with a larger window, raise the server\'s context size, or run an agent with fewer tools';
    }
    return note;
  }

  /** The system prompt of a turn without an agent: the default prompt plus the blocks an agent's prompt gets too (skills). */
  async function plainSystem(): Promise<string> {
    const blocks = promptBlocks ? (await promptBlocks()).filter(Boolean) : [];
    return [DEFAULT_CHAT_SYSTEM, ...blocks].join('\n\n');
  }

  /** Starts the next queued message, if any. A message whose provider or agent vanished fails alone. */
  async function next(session: Session): Promise<void> {
    while (!session.busy && session.queue.length) {
      const queued = session.queue.shift() as QueuedMessage & { input: SendInput };
      deps.bus.emit('chat.queue.removed', { sessionId: session.id, id: queued.id, reason: 'started' });
      try {
        const input = { ...queued.input, message: queued.message, queueId: queued.id };
        const resolved = await resolveTurn(input);
        if (session.busy) {
          session.queue.unshift(queued);
          return;
        }
        startTurn(session, input, resolved);
      } catch (err) {
        deps.bus.emit('chat.status', { sessionId: session.id, busy: false, status: 'idle', outcome: 'failed', error: describeError(err), queueId: queued.id });
      }
    }
  }

  function list() {
    return { sessions: [...sessions.values()].filter((s) => s.persisted).map((s) => s.summary()).sort((a, b) => b.updatedAt - a.updatedAt) };
  }

  async function get(id: unknown, full: boolean) {
    const session = await load(existing(id));
    const lastTurn = session.lastTurn();
    if (!full) return { messages: session.messages(), busy: session.busy, ...(lastTurn ? { lastTurn } : {}) };
    return {
      id: session.id,
      title: session.title,
      transcript: session.transcript.filter((r) => r.type !== 'created'),
      messages: session.messages(),
      busy: session.busy,
      runId: session.run?.id,
      queued: session.queue.map(({ id: qid, message, queuedAt }) => ({ id: qid, message, queuedAt })),
      permissionMode: session.mode,
      contextTokens: session.contextTokens,
      ...(session.window ? { window: session.window } : {}),
      ...(lastTurn ? { lastTurn } : {}),
      ...session.selection,
    };
  }

  async function rename(id: unknown, body: unknown) {
    const session = await load(existing(id));
    const title = (body as { title?: unknown } | undefined)?.title;
    if (typeof title !== 'string' || !title.trim()) throw badRequest('title is required: a non-empty string');
    if (title.length > LIMITS.chatTitleChars) throw badRequest(`title is too long; the limit is ${LIMITS.chatTitleChars} characters`);
    await record(session, { type: 'title', ts: Date.now(), title: title.trim() });
    deps.bus.emit('chat.renamed', { sessionId: session.id, title: session.title });
    return { ok: true, title: session.title };
  }

  /**
   * Stops the turn in flight. Stop means "hold on": the messages queued behind the turn do not
   * start; they leave the queue and come back to the client (answer `unqueued`, and
   * `chat.queue.removed` with reason `stopped` and the text) to put back in its input box, as Claude
   * Code does on interrupt.
   */
  function stop(body: unknown) {
    const session = existing((body as { sessionId?: unknown } | undefined)?.sessionId);
    if (!session.busy || !session.run) throw conflict(`session "${session.id}" has no turn in flight`);
    const unqueued = holdQueue(session);
    session.run.stop();
    return { ok: true, unqueued };
  }

  /** Takes every queued message out of the queue and hands its text back (`chat.queue.removed`, reason `stopped`). */
  function holdQueue(session: Session): Array<{ id: string; message: string }> {
    const unqueued = session.queue.splice(0).map(({ id, message }) => ({ id, message }));
    for (const q of unqueued) deps.bus.emit('chat.queue.removed', { sessionId: session.id, id: q.id, message: q.message, reason: 'stopped' });
    return unqueued;
  }

  /** PUT /api/chat/mode: an existing session only (POST /api/chat takes permissionMode for a new one). */
  async function setMode(id: unknown, mode: unknown) {
    const session = existing(id);
    if (mode !== 'ask' && mode !== 'allow') throw badRequest('permissionMode must be "ask" or "allow"');
    await applyMode(await load(session), mode);
    return { ok: true, permissionMode: mode };
  }

  async function applyMode(session: Session, mode: PermissionMode): Promise<void> {
    if (session.mode !== mode) await record(session, { type: 'mode', ts: Date.now(), permissionMode: mode });
    // The gate re-reads the mode on every call; a prompt blocking right now is released at once.
    if (mode === 'allow') deps.gate?.releaseSession(session.id);
  }

  function findQueued(sessionId: unknown, queueId: unknown) {
    const session = existing(sessionId);
    if (typeof queueId !== 'string' || !queueId) throw badRequest('id is required: the queued message id from chat.queued');
    const index = session.queue.findIndex((q) => q.id === queueId);
    if (index < 0) throw notFound(`no queued message "${queueId}" in session "${session.id}" (it may have started already)`);
    return { session, index };
  }

  function editQueued(body: unknown) {
    const b = (body ?? {}) as Record<string, unknown>;
    const { session, index } = findQueued(b.sessionId, b.id);
    if (typeof b.message !== 'string' || !b.message.trim()) throw badRequest('message is required: the new text');
    if (b.message.length > LIMITS.chatMessageChars) throw badRequest(`message is too long; the limit is ${LIMITS.chatMessageChars} characters`);
    session.queue[index].message = b.message;
    deps.bus.emit('chat.queue.updated', { sessionId: session.id, id: session.queue[index].id, message: b.message });
    return { ok: true };
  }

  function cancelQueued(sessionId: unknown, queueId: unknown) {
    const { session, index } = findQueued(sessionId, queueId);
    const [removed] = session.queue.splice(index, 1);
    deps.bus.emit('chat.queue.removed', { sessionId: session.id, id: removed.id, reason: 'canceled' });
    return { ok: true };
  }

  /** Stops every turn and waits for each to be written (engine shutdown). */
  async function close(): Promise<void> {
    const turns = [...sessions.values()].filter((s) => s.busy);
    for (const s of turns) {
      s.queue.length = 0;
      s.run?.stop();
    }
    await Promise.all(turns.map((s) => s.turnDone));
    await saveIndex();
  }

  return {
    init,
    send,
    list,
    get,
    rename,
    stop,
    setMode,
    editQueued,
    cancelQueued,
    close,
    /** Whether a session's transcript is in memory (tests of lazy loading). */
    isLoaded: (sessionId: string) => sessions.get(sessionId)?.loaded ?? false,
    /** Wires the agents capability (composition root). */
    setAgentResolver: (fn: ResolveAgent) => {
      resolveAgent = fn;
    },
    /** Wires the system-prompt blocks of plain chat, e.g. the workspace skills (composition root). */
    setPromptBlocks: (fn: () => Promise<string[]>) => {
      promptBlocks = fn;
    },
    /** Wires the dashboards capability: `dashboard` in POST /api/chat (composition root). */
    setDashboardResolver: (fn: ResolveDashboard) => {
      resolveDashboard = fn;
    },
  };
}

const messageId = () => `m-${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`;

/** The user's message as the model gets it: context first (as text), then the message, then images. */
function userMessage(input: SendInput): ModelMessage {
  let text = input.message;
  if (input.context !== undefined && input.context !== null && input.context !== '') {
    const ctx = typeof input.context === 'string' ? input.context : JSON.stringify(input.context, null, 2);
    text = `<context>\n${ctx}\n</context>\n\n${input.message}`;
  }
  if (!input.images?.length) return { role: 'user', content: text };
  const parts: Array<TextPart | ImagePart> = [{ type: 'text', text }];
  input.images.forEach((img, i) => parts.push(imagePart(img, i)));
  return { role: 'user', content: parts };
}

/** A data URL, an http(s) URL, or {data (base64 or data URL), mediaType}. */
function imagePart(img: unknown, i: number): ImagePart {
  const bad = () => badRequest(`images[${i}] must be a data URL (data:image/png;base64,...), an http(s) URL or {data, mediaType}`);
  let data: unknown = img;
  let mediaType: string | undefined;
  if (img && typeof img === 'object') {
    data = (img as { data?: unknown }).data;
    mediaType = typeof (img as { mediaType?: unknown }).mediaType === 'string' ? (img as { mediaType: string }).mediaType : undefined;
  }
  if (typeof data !== 'string' || !data) throw bad();
  const dataUrl = /^data:([^;,]+);base64,(.*)$/s.exec(data);
  if (dataUrl) return { type: 'image', image: dataUrl[2], mediaType: mediaType ?? dataUrl[1] };
  if (/^https?:\/\//.test(data)) return { type: 'image', image: new URL(data), mediaType };
  if (/^[A-Za-z0-9+/=\s]+$/.test(data)) return { type: 'image', image: data, mediaType: mediaType ?? 'image/png' };
  throw bad();
}
