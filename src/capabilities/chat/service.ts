/**
 * Chat: sessions, turns and the queue. A turn is a run in the ledger (source `chat`) driving the
 * one agent loop; its reply streams as chat events, its messages are appended to the session file
 * as they are made. A message sent while the session is busy waits in the queue and runs when the
 * turn ends. This file composes the parts and answers the routes:
 *   sessions.ts  the sessions in memory, their files and the index
 *   input.ts     POST /api/chat validated, the user message
 *   request.ts   request assembly: agent, provider, system prompt, tools, the window
 *   turn.ts      the turn processor (streaming, persistence, outcome)
 *   queue.ts     start or queue, the next message, hold, edit and cancel
 */
import type { Bus } from '../../kernel/bus.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import type { Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import type { RunLedger } from '../../kernel/runs.js';
import type { ProviderService } from '../../providers/service.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { AppSettings } from '../settings/types.js';
import { checkModelId, parseSend } from './input.js';
import { createTurnQueue } from './queue.js';
import { createRequestBuilder } from './request.js';
import type { Session } from './session.js';
import { createSessions } from './sessions.js';
import { ChatStore } from './store.js';
import { createTurnProcessor } from './turn.js';
import type { ChatGateHooks, ModelChoice, PermissionMode, ResolveAgent } from './types.js';

export interface ChatServiceDeps {
  home: Home;
  bus: Bus;
  runs: RunLedger;
  tools: ToolRegistry;
  providers: ProviderService;
  settings: { get(): Pick<AppSettings, 'chatMaxTurns' | 'compactFraction' | 'toolBudgetShare'> };
  /** The permission gate's chat hooks (reads each session's mode; releases prompts on allow). */
  gate?: ChatGateHooks;
  resolveAgent?: ResolveAgent;
  /** Extra system-prompt blocks of a turn that names no agent (the workspace skills); wired by the composition root. */
  promptBlocks?: () => Promise<string[]>;
  log?: (line: string) => void;
}

export type ChatService = ReturnType<typeof createChatService>;

export function createChatService(deps: ChatServiceDeps) {
  const log = deps.log ?? (() => undefined);
  const sessions = createSessions(new ChatStore(deps.home, deps.bus.redactor.json), log);
  const request = createRequestBuilder(deps);
  const executeTurn = createTurnProcessor({ bus: deps.bus, sessions, request, log });
  const queue = createTurnQueue({ bus: deps.bus, runs: deps.runs, sessions, request, executeTurn, log });

  async function init(): Promise<void> {
    await sessions.init();
    deps.gate?.setModeLookup((sessionId) => sessions.find(sessionId)?.mode);
  }

  /**
   * POST /api/chat: starts a turn, or queues the message when the session is busy. A message naming
   * a provider or model picks them for the session; one naming neither runs on the session's pick.
   */
  async function send(body: unknown): Promise<{ ok: true; queued?: boolean; id?: string }> {
    const parsed = parseSend(body);
    const picked = parsed.provider !== undefined || parsed.model !== undefined;
    const choice: ModelChoice = picked ? { provider: parsed.provider, model: parsed.model } : (sessions.find(parsed.sessionId)?.choice ?? {});
    const input = { ...parsed, provider: choice.provider, model: choice.model };
    // Resolve before answering so an unknown agent or provider is the caller's error now, not a failed turn later.
    const resolved = await request.resolve(input);
    const session = await sessions.getOrCreate(input.sessionId);
    if (input.permissionMode) await applyMode(session, input.permissionMode);
    if (picked) await applyChoice(session, choice);
    return { ok: true, ...queue.startOrQueue(session, input, resolved) };
  }

  /** PUT /api/chat/model: an existing session's provider and model for its next turns (null or absent: the default). */
  async function setModel(body: unknown) {
    const b = (body ?? {}) as { sessionId?: unknown; provider?: unknown; model?: unknown };
    const session = await sessions.load(sessions.existing(b.sessionId));
    if (b.provider !== undefined && b.provider !== null && typeof b.provider !== 'string') throw badRequest('provider must be a provider name from GET /api/config, or null for the default provider');
    const provider = (b.provider as string | null | undefined) || undefined;
    if (provider && !deps.providers.names().includes(provider)) {
      throw badRequest(`unknown provider "${provider}"; configured providers: ${deps.providers.names().join(', ') || '(none: add one in Settings)'}`);
    }
    const choice: ModelChoice = { provider, model: checkModelId(b.model) };
    await applyChoice(session, choice);
    return { ok: true, modelChoice: session.choice };
  }

  async function applyChoice(session: Session, choice: ModelChoice): Promise<void> {
    if (session.choice.provider === choice.provider && session.choice.model === choice.model) return;
    await sessions.record(session, { type: 'model', ts: Date.now(), ...(choice.provider ? { provider: choice.provider } : {}), ...(choice.model ? { model: choice.model } : {}) });
  }

  function list() {
    return { sessions: sessions.all().filter((s) => s.persisted).map((s) => s.summary()).sort((a, b) => b.updatedAt - a.updatedAt) };
  }

  /** A session's view; with `page`, its messages are that page (newest `limit`, or those before a message) and `hasMore` says whether older ones remain. */
  async function get(id: unknown, full: boolean, page?: { limit: number; before?: string }) {
    const session = await sessions.load(sessions.existing(id));
    const cut = page ? session.page(page.limit, page.before) : undefined;
    if (page && !cut) throw notFound(`session "${session.id}" has no message "${page.before}"; give before as the id of a message from an earlier page`);
    const messages = cut ? { messages: cut.messages, hasMore: cut.hasMore } : { messages: session.messages() };
    const lastTurn = session.lastTurn();
    // A client polling the session sees why a busy turn does not move: a prompt waits on a person.
    const waiting = session.busy ? (deps.gate?.pending() ?? []).filter((p) => p.sessionId === session.id).map(({ callId, tool, display }) => ({ callId, tool, display })) : [];
    const modelChoice = session.choice.provider || session.choice.model ? { modelChoice: session.choice } : {};
    const shared = { ...(lastTurn ? { lastTurn } : {}), ...(waiting.length ? { waiting } : {}), ...modelChoice };
    if (!full) return { ...messages, busy: session.busy, ...shared };
    return {
      id: session.id,
      title: session.title,
      transcript: session.transcript.filter((r) => r.type !== 'created'),
      ...messages,
      busy: session.busy,
      runId: session.run?.id,
      queued: session.queue.map(({ id: qid, message, queuedAt }) => ({ id: qid, message, queuedAt })),
      permissionMode: session.mode,
      contextTokens: session.contextTokens,
      ...(session.window ? { window: session.window } : {}),
      ...shared,
      ...session.selection,
    };
  }

  async function rename(id: unknown, body: unknown) {
    const session = await sessions.load(sessions.existing(id));
    const title = (body as { title?: unknown } | undefined)?.title;
    if (typeof title !== 'string' || !title.trim()) throw badRequest('title is required: a non-empty string');
    if (title.length > LIMITS.chatTitleChars) throw badRequest(`title is too long; the limit is ${LIMITS.chatTitleChars} characters`);
    await sessions.record(session, { type: 'title', ts: Date.now(), title: title.trim() });
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
    const session = sessions.existing((body as { sessionId?: unknown } | undefined)?.sessionId);
    if (!session.busy || !session.run) throw conflict(`session "${session.id}" has no turn in flight`);
    const unqueued = queue.hold(session);
    session.run.stop();
    return { ok: true, unqueued };
  }

  /** PUT /api/chat/mode: an existing session only (POST /api/chat takes permissionMode for a new one). */
  async function setMode(id: unknown, mode: unknown) {
    const session = sessions.existing(id);
    if (mode !== 'ask' && mode !== 'allow') throw badRequest('permissionMode must be "ask" or "allow"');
    await applyMode(await sessions.load(session), mode);
    return { ok: true, permissionMode: mode };
  }

  async function applyMode(session: Session, mode: PermissionMode): Promise<void> {
    if (session.mode !== mode) await sessions.record(session, { type: 'mode', ts: Date.now(), permissionMode: mode });
    // The gate re-reads the mode on every call; a prompt blocking right now is released at once.
    if (mode === 'allow') deps.gate?.releaseSession(session.id);
  }

  /** Stops every turn and waits for each to be written (engine shutdown). */
  async function close(): Promise<void> {
    const turns = sessions.all().filter((s) => s.busy);
    for (const s of turns) {
      s.queue.length = 0;
      s.run?.stop();
    }
    await Promise.all(turns.map((s) => s.turnDone));
    await sessions.saveIndex();
  }

  return {
    init,
    send,
    list,
    get,
    rename,
    stop,
    setMode,
    setModel,
    editQueued: queue.edit,
    cancelQueued: queue.cancel,
    close,
    /** Whether a session's transcript is in memory (tests of lazy loading). */
    isLoaded: (sessionId: string) => sessions.find(sessionId)?.loaded ?? false,
    /** Wires the agents capability (composition root). */
    setAgentResolver: request.setAgentResolver,
    /** Wires the system-prompt blocks of plain chat, e.g. the workspace skills (composition root). */
    setPromptBlocks: request.setPromptBlocks,
    /** Wires the dashboards capability: `dashboard` in POST /api/chat (composition root). */
    setDashboardResolver: request.setDashboardResolver,
    /** Wires the atlas capability: `atlas` in POST /api/chat (composition root). */
    setAtlasResolver: request.setAtlasResolver,
  };
}
