/**
 * Chat: the sessions, one session's messages (virtualised, markdown drawn safely), the turn in flight
 * as it streams (text, tool calls as cards with their live output, permission prompts inline), stop,
 * the queue, the permission mode, the agent, the session's model, the context use, and under a turn
 * that changed files its revert. A turn that failed shows the engine's reason.
 */
import { useComputed, useSignal } from '@preact/signals';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { del, get, post, put, sentence } from '../api';
import { chatTick, context, live, queues, sessionsTick, type LiveTurn, type ToolRun } from '../chat-live';
import { loadMarkdown, Markdown, markdownReady } from '../markdown';
import { navigate } from '../router';
import { epoch, prompts } from '../sync';
import { Action, ErrorLine, short, Time } from '../ui';
import { VirtualList } from '../virtual-list';
import { TurnChanges, useCheckpoints, type Checkpoint } from './checkpoints';
import { ModelPicker } from './model-picker';
import { PermissionPrompt } from './permission-prompt';
import { ToolCard } from './tool-card';
import type { ChatMessageView as Message, ModelChoice } from '../../../src/capabilities/chat/types';
import './chat.css';

interface Session {
  id: string;
  title?: string;
  updatedAt?: number;
  busy?: boolean;
  messageCount?: number;
  permissionMode?: string;
}

/**
 * A row's height before it is drawn, from what it holds (a line of text a 90 characters, a closed
 * card, an open diff), so a session of tool cards settles in a measure or two instead of many.
 */
function rowHeight(r: Row): number {
  if (r.kind === 'live') return 120;
  let h = guessed.get(r.m);
  if (h === undefined) {
    const calls = r.m.toolCalls ?? [];
    const diffLines = calls.reduce((n, c) => n + (c.diff ? c.diff.split('\n').length : 0), 0);
    const failed = calls.filter((c) => c.ok === false).length;
    guessed.set(r.m, (h = 44 + Math.ceil(r.m.text.length / 90) * 22 + calls.length * 40 + diffLines * 17 + failed * 60));
  }
  return h + (r.changes ? 46 : 0);
}
const guessed = new WeakMap<Message, number>();

/** Messages a page of the session brings (the newest first, then older ones while scrolling up). */
const PAGE = 100;

const newId = () => `s-${new Date().toISOString().slice(0, 10)}-${Math.random().toString(36).slice(2, 8)}`;

export function ChatPage({ sessionId, compact }: { sessionId?: string; compact?: boolean }) {
  const sessions = useSignal<Session[]>([]);
  const error = useSignal<string | null>(null);
  useEffect(loadMarkdown, []);
  useEffect(() => {
    void epoch.value;
    void sessionsTick.value;
    get<{ sessions: Session[] }>('/api/chat').then(
      (r) => ((sessions.value = r.sessions), (error.value = null)),
      (e) => (error.value = sentence(e)),
    );
  }, [epoch.value, sessionsTick.value]);
  const base = compact ? '/m/chat' : '/chat';
  const showList = !compact || !sessionId;
  return (
    <div class={`chat ${compact ? 'compact' : ''} ${sessionId ? 'open' : ''}`}>
      {showList && (
        <aside class="sessions">
          <div class="sessions-head">
            <button class="btn primary" onClick={() => navigate(`${base}/${newId()}`)}>New chat</button>
          </div>
          <ErrorLine error={error.value} />
          <nav class="session-list">
            {sessions.value.map((s) => (
              <a key={s.id} href={`${base}/${encodeURIComponent(s.id)}`} class={`session ${s.id === sessionId ? 'active' : ''}`}>
                <span class="session-title">{s.title || s.id}</span>
                <span class="muted small">
                  {s.busy ? <span class="dot live" /> : null}
                  {s.messageCount ?? 0} msgs · <Time ts={s.updatedAt} />
                </span>
              </a>
            ))}
            {!sessions.value.length && !error.value && <div class="muted pad">No chats yet.</div>}
          </nav>
        </aside>
      )}
      {sessionId ? (
        <Session key={sessionId} id={sessionId} known={sessions.value.find((s) => s.id === sessionId)} back={base} />
      ) : (
        !compact && <div class="chat-empty">Pick a chat or start a new one.</div>
      )}
    </div>
  );
}

/** A row of the list: a saved message (with its turn's file changes when it ends a turn that made some), or the turn in flight. */
type Row = { kind: 'msg'; m: Message; changes?: Checkpoint[] } | { kind: 'live'; t: LiveTurn };

/** `back`: the chat list, a link shown where the list and the session do not fit side by side. */
function Session({ id, known, back }: { id: string; known?: Session; back?: string }) {
  const messages = useSignal<Message[]>([]);
  const loaded = useSignal(false);
  const busy = useSignal(false);
  const lastTurn = useSignal<any>(null);
  const error = useSignal<string | null>(null);
  const mode = useSignal<string>(known?.permissionMode ?? 'ask');
  const agent = useSignal<string>('');
  const agents = useSignal<{ name: string }[]>([]);
  const choice = useSignal<ModelChoice>({});
  const draft = useSignal('');
  const painted = useRef(false);
  const checkpoints = useCheckpoints();

  // The newest page of messages comes first (a long session paints as fast as a short one); older
  // pages come as the reader scrolls up. A reload keeps the older pages already read.
  const older = useSignal(false);
  const paging = useRef(false);
  const url = (before?: string) => `/api/chat/${encodeURIComponent(id)}?limit=${PAGE}${before ? `&before=${encodeURIComponent(before)}` : ''}`;
  const load = async () => {
    try {
      const r = await get<{ messages: Message[]; hasMore?: boolean; busy: boolean; lastTurn?: any; modelChoice?: ModelChoice }>(url());
      const at = r.messages.length ? messages.value.findIndex((m) => m.id === r.messages[0].id) : -1;
      if (at > 0) messages.value = [...messages.value.slice(0, at), ...r.messages];
      else [messages.value, older.value] = [r.messages, !!r.hasMore];
      busy.value = r.busy;
      lastTurn.value = r.lastTurn ?? null;
      choice.value = r.modelChoice ?? {};
      const t = live.get(id);
      if (t?.outcome && !r.busy) live.delete(id);
      error.value = null;
    } catch (e) {
      // A session not yet created (New chat) is empty until its first message.
      if ((e as { status?: number }).status === 404) messages.value = [];
      else error.value = sentence(e);
    }
    loaded.value = true;
  };
  const loadOlder = async () => {
    if (!older.value || paging.current || !messages.value.length) return;
    paging.current = true;
    try {
      const r = await get<{ messages: Message[]; hasMore?: boolean }>(url(messages.value[0].id));
      messages.value = [...r.messages, ...messages.value];
      older.value = !!r.hasMore;
    } catch (e) {
      error.value = sentence(e);
    } finally {
      paging.current = false;
    }
  };

  useEffect(() => {
    performance.mark('chat-open');
    painted.current = false;
    void load();
    get<any>('/api/agents').then((a) => (agents.value = Array.isArray(a) ? a : (a.agents ?? [])), () => {});
  }, [id, epoch.value]);
  useEffect(() => {
    if (known?.permissionMode) mode.value = known.permissionMode;
  }, [known?.permissionMode]);
  // A turn ended, or a message arrived: read the session again (the engine's copy is the truth).
  useEffect(() => {
    if (loaded.value) void load();
  }, [sessionsTick.value]);
  useEffect(() => {
    if (loaded.value && !painted.current) {
      painted.current = true;
      requestAnimationFrame(() => {
        performance.mark('chat-painted');
        performance.measure('chat-paint', 'chat-open', 'chat-painted');
      });
    }
  });

  void chatTick.value;
  void markdownReady.value; // the rows change height once markdown draws: the list measures them again
  const turn = live.get(id);
  const running = busy.value || (!!turn && !turn.outcome);
  // The turn in flight saves each finished step as a message: the live row shows only what is not
  // saved yet (the rest of the text, the calls of the step still streaming), and a saved call shows
  // its live state (running, its result) until the turn ends.
  const liveTools = new Map((turn?.tools ?? []).map((c) => [c.callId, c]));
  const rows = useMemo<Row[]>(() => {
    // The files each ended turn changed hang under its last message.
    const byRun = new Map<string, Checkpoint[]>();
    for (const c of checkpoints) byRun.set(c.runId, [...(byRun.get(c.runId) ?? []), c]);
    const lastOfRun = new Map<string, string>();
    for (const m of messages.value) if (m.runId) lastOfRun.set(m.runId, m.id);
    const out: Row[] = messages.value.map((m) => {
      const ends = m.runId && lastOfRun.get(m.runId) === m.id && m.runId !== turn?.runId;
      return { kind: 'msg', m, ...(ends && byRun.has(m.runId!) ? { changes: byRun.get(m.runId!) } : {}) };
    });
    if (turn && !turn.outcome) {
      const saved = messages.value.filter((m) => m.runId === turn.runId && m.role === 'assistant');
      const savedCalls = new Set(saved.flatMap((m) => m.toolCalls?.map((c) => c.callId) ?? []));
      const savedText = saved.map((m) => m.text).join('');
      const text = savedText && turn.text.startsWith(savedText) ? turn.text.slice(savedText.length) : turn.text;
      out.push({ kind: 'live', t: { ...turn, text, tools: turn.tools.filter((c) => !savedCalls.has(c.callId)) } });
    }
    return out;
  }, [messages.value, turn, chatTick.value, checkpoints]);
  const waiting = useComputed(() => prompts.value.filter((p) => p.sessionId === id));
  const ctx = context.get(id);
  const queued = queues.get(id) ?? [];
  const failed = turn?.outcome === 'failed' ? turn.error : lastTurn.value?.status === 'failed' ? lastTurn.value.error : null;

  const send = async () => {
    const message = draft.value.trim();
    if (!message) return;
    error.value = null;
    try {
      // A new session takes the model picked for it with its first message (an existing one has it already).
      const pick = messages.value.length ? {} : choice.value;
      await post('/api/chat', { sessionId: id, message, permissionMode: mode.value, ...(agent.value ? { agent: agent.value } : {}), ...pick });
      draft.value = '';
      if (!messages.value.length) void load();
    } catch (e) {
      error.value = sentence(e);
    }
  };
  const setMode = async (m: string) => {
    mode.value = m;
    if (!messages.value.length) return; // a new session takes its mode with its first message
    try {
      await put('/api/chat/mode', { sessionId: id, permissionMode: m });
    } catch (e) {
      error.value = sentence(e);
    }
  };

  return (
    <section class="session-view">
      <header class="session-head">
        {back && <a href={back} class="btn plain chat-back" aria-label="all chats">‹</a>}
        <h2 class="session-name">{known?.title || (messages.value.length ? id : 'New chat')}</h2>
        <div class="session-tools">
          {agents.value.length > 0 && (
            <select aria-label="agent" value={agent.value} onChange={(e) => (agent.value = (e.target as HTMLSelectElement).value)}>
              <option value="">No agent</option>
              {agents.value.map((a) => (
                <option value={a.name}>{a.name}</option>
              ))}
            </select>
          )}
          <ModelPicker
            choice={choice.value}
            onPick={async (c) => {
              if (messages.value.length) await put('/api/chat/model', { sessionId: id, provider: c.provider ?? null, model: c.model ?? null });
              choice.value = c;
            }}
          />
          <div class="seg" role="group" aria-label="permission mode">
            {['ask', 'allow'].map((m) => (
              <button class={mode.value === m ? 'on' : ''} onClick={() => setMode(m)} title={m === 'ask' ? 'ask before tools that change things' : 'run tools without asking'}>
                {m}
              </button>
            ))}
          </div>
          {ctx && (
            <span class="muted small" title={`${ctx.tokens} of ${ctx.window} tokens`}>
              context {Math.round((ctx.tokens / ctx.window) * 100)}%
            </span>
          )}
        </div>
      </header>
      <VirtualList<Row>
        class="messages"
        bottom
        items={rows}
        tick={chatTick.value}
        keyOf={(r) => (r.kind === 'msg' ? r.m.id : `live-${r.t.runId}`)}
        onNearTop={loadOlder}
        estimate={rowHeight}
        render={(r) => (r.kind === 'msg' ? <MessageRow m={r.m} live={liveTools} running={running} changes={r.changes} /> : <LiveRow t={r.t} />)}
      />
      <div class="composer-area">
        {waiting.value.map((p) => (
          <PermissionPrompt key={p.callId} p={p} />
        ))}
        {failed && !running && <div class="error-line" role="alert">The last turn failed: {failed}</div>}
        <ErrorLine error={error.value} />
        {queued.map((q) => (
          <div class="queued" key={q.id}>
            <span class="muted small">queued</span> {short(q.message, 120)}
            <Action onClick={() => del(`/api/chat/queue?session=${encodeURIComponent(id)}&id=${encodeURIComponent(q.id)}`)}>Cancel</Action>
          </div>
        ))}
        <div class="composer">
          <textarea
            placeholder={running ? 'Queue a message…' : 'Message…  (Enter sends, Shift+Enter for a new line)'}
            value={draft.value}
            rows={2}
            onInput={(e) => (draft.value = (e.target as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
                e.preventDefault();
                void send();
              }
            }}
          />
          {running ? (
            <Action kind="danger" onClick={async () => {
              const r = await post<{ unqueued?: { message: string }[] }>('/api/chat/stop', { sessionId: id });
              // Stop hands the queued messages back for the input box (docs/chat.md).
              if (r.unqueued?.length) draft.value = [draft.value, ...r.unqueued.map((q) => q.message)].filter(Boolean).join('\n');
            }} onError={(m) => (error.value = m)}>Stop</Action>
          ) : null}
          <button class="btn primary" onClick={send} disabled={!draft.value.trim()}>
            {running ? 'Queue' : 'Send'}
          </button>
        </div>
      </div>
    </section>
  );
}

function MessageRow({ m, live, running, changes }: { m: Message; live: Map<string, ToolRun>; running: boolean; changes?: Checkpoint[] }) {
  return (
    <div class={`msg ${m.role} ${m.status ?? ''}`}>
      <div class="msg-role">{m.role === 'user' ? 'You' : 'Assistant'}</div>
      {m.text && (m.role === 'assistant' ? <Markdown class="msg-text" text={m.text} /> : <div class="msg-text">{m.text}</div>)}
      {m.toolCalls?.map((c) => <ToolCard key={c.callId} saved={c} live={live.get(c.callId)} turnRunning={running} />)}
      {m.status && (
        <div class={m.status === 'failed' ? 'error-line' : 'muted small'}>
          {m.status}
          {m.error ? `: ${m.error}` : ''}
        </div>
      )}
      {changes && m.runId && <TurnChanges runId={m.runId} checkpoints={changes} />}
    </div>
  );
}

function LiveRow({ t }: { t: LiveTurn }) {
  // Nothing new beyond the saved steps (a call runs, the model thinks): a line, not another reply.
  if (!t.text && !t.reasoning && !t.tools.length) {
    return (
      <div class="msg live muted small" data-live>
        <span class="dot live" /> working…
      </div>
    );
  }
  return (
    <div class="msg assistant live" data-live>
      <div class="msg-role">
        Assistant <span class="dot live" />
      </div>
      {t.reasoning && <details class="reasoning"><summary>thinking</summary>{t.reasoning}</details>}
      {t.text && <Markdown class="msg-text" text={t.text} />}
      {t.tools.map((c) => (
        <ToolCard key={c.callId} live={c} turnRunning />
      ))}
    </div>
  );
}
