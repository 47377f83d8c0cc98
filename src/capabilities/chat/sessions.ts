/**
 * The sessions a chat service holds: every session's summary in memory, transcripts loaded on
 * first use and unloaded when idle, records appended to the session files (store.ts) and the
 * summary index written a moment after changes.
 */
import { randomUUID } from 'node:crypto';
import type { ModelMessage } from 'ai';
import { describeError, notFound } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { checkSessionId } from './input.js';
import { repairContext, Session } from './session.js';
import type { SessionSnapshot } from './session.js';
import type { ChatStore, SessionRecord } from './store.js';

export type Sessions = ReturnType<typeof createSessions>;

export const messageId = () => `m-${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`;

export function createSessions(store: ChatStore, log: (line: string) => void) {
  const sessions = new Map<string, Session>();

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

  return {
    init,
    load,
    existing,
    getOrCreate,
    append,
    record,
    saveIndex,
    find: (id: string) => sessions.get(id),
    all: () => [...sessions.values()],
  };
}
