/** One chat session in memory, rebuilt by replaying its records (store.ts). */
import type { ModelMessage } from 'ai';
import { resultText, summaryMessage } from '../../agent/index.js';
import { LIMITS } from '../../kernel/limits.js';
import type { LiveRun } from '../../kernel/runs.js';
import type { SessionRecord, TurnStatus } from './store.js';
import type { ChatMessageView, ChatSessionSummary, ChatToolCallView, ModelChoice, PermissionMode, QueuedMessage } from './types.js';

type MessageRecord = Extract<SessionRecord, { type: 'message' }>;

export interface Selection {
  agent?: string;
  provider?: string;
  model?: string;
}

/** The window the last turn ran in (memory only): shown in chat.status and GET ?view=full. */
export interface SessionWindow {
  contextWindow: number;
  contextWindowSource: 'config' | 'server' | 'default';
  /** Tokens of the tool definitions the first request carries. */
  toolTokens: number;
  /** Tokens the tool definitions may take (toolBudgetShare of the window). */
  toolBudget: number;
  /** What counted them: the local model's tokenizer, the cl100k BPE estimate, or 4 characters a token. */
  tokenizer: 'model' | 'cl100k' | 'estimate';
  /** Tools not sent, found through tool_search (only when not all fit). */
  deferredTools?: number;
  note?: string;
  warning?: string;
}

/** What the session index (store.ts) keeps of a session, so start-up need not read its file. */
export interface SessionSnapshot {
  title: string;
  createdAt: number;
  updatedAt: number;
  messageCount: number;
  mode?: PermissionMode;
  selection: Selection;
  /** The provider and model picked for the session's next turns. */
  choice?: ModelChoice;
  openTurns: string[];
}

/**
 * A session's summary (title, times, count, mode, selection, open turns) is always in memory; its
 * transcript and model context only while `loaded` (sessions load on first use and idle ones are
 * unloaded again, so start-up and memory do not grow with the history).
 */
export class Session {
  title = '';
  createdAt = Date.now();
  updatedAt = Date.now();
  /** Whether the session file exists (the first record written creates it). */
  persisted = false;
  /** Whether transcript and context are in memory (a new session is). */
  loaded = true;
  /** Bytes of the session file, counting records handed to the store (the index's offset). */
  bytes = 0;
  lastUsed = Date.now();
  transcript: SessionRecord[] = [];
  /** User and assistant messages as clients show them, kept as records apply (a page is cut from it, never rebuilt). */
  private views: ChatMessageView[] = [];
  /** Where each view is in `views`, by message id (a page `before` a message starts there). */
  private readonly viewAt = new Map<string, number>();
  /** The last view of each run: a turn that ends badly marks it. */
  private readonly lastOfRun = new Map<string, ChatMessageView>();
  /** Tool calls shown but not answered yet, by call id: the tool message that answers one fills it in. */
  private readonly openCalls = new Map<string, ChatToolCallView>();
  /** The conversation as the model sees it (compactions applied). */
  context: ModelMessage[] = [];
  mode: PermissionMode | undefined;
  selection: Selection = {};
  /** The provider and model the session's next turns run on (`model` records); empty: the default. */
  choice: ModelChoice = {};
  messageCount = 0;
  private readonly openTurns = new Set<string>();
  busy = false;
  run: LiveRun | undefined;
  /** Settles when the turn in flight has fully ended (records written, run finished). */
  turnDone: Promise<void> | undefined;
  readonly queue: QueuedMessage[] = [];
  /** Context size measured at the last step. */
  contextTokens: number | undefined;
  window: SessionWindow | undefined;
  /** Reply text of a step still streaming (from `partial` records), until its message is saved. */
  partial: { runId: string; text: string; reasoning: string } | undefined;

  constructor(readonly id: string) {}

  static fromSnapshot(id: string, snap: SessionSnapshot, bytes: number): Session {
    const s = new Session(id);
    Object.assign(s, { title: snap.title, createdAt: snap.createdAt, updatedAt: snap.updatedAt, messageCount: snap.messageCount, mode: snap.mode, selection: { ...snap.selection }, choice: { ...snap.choice } });
    for (const runId of snap.openTurns) s.openTurns.add(runId);
    s.persisted = true;
    s.loaded = false;
    s.bytes = bytes;
    return s;
  }

  snapshot(): SessionSnapshot {
    return { title: this.title, createdAt: this.createdAt, updatedAt: this.updatedAt, messageCount: this.messageCount, mode: this.mode, selection: this.selection, choice: this.choice, openTurns: [...this.openTurns] };
  }

  /** Replaces everything with a replay of the whole file (`records`), transcript and context included. */
  reload(records: SessionRecord[]): void {
    Object.assign(this, { title: '', messageCount: 0, mode: undefined, selection: {}, choice: {}, transcript: [], context: [], partial: undefined, loaded: true });
    this.clearViews();
    this.openTurns.clear();
    for (const r of records) this.apply(r);
  }

  /** Drops transcript and context (an idle session nobody looked at lately); the summary stays. */
  unload(): void {
    this.transcript = [];
    this.context = [];
    this.clearViews();
    this.loaded = false;
  }

  private clearViews(): void {
    this.views = [];
    this.viewAt.clear();
    this.lastOfRun.clear();
    this.openCalls.clear();
  }

  apply(record: SessionRecord): void {
    this.updatedAt = Math.max(this.updatedAt, record.ts);
    if (record.type === 'partial') {
      const p = this.partial?.runId === record.runId ? this.partial : { runId: record.runId, text: '', reasoning: '' };
      p.text += record.text ?? '';
      p.reasoning += record.reasoning ?? '';
      this.partial = p;
      return;
    }
    if (this.loaded) {
      this.transcript.push(record);
      this.addView(record);
    }
    if (record.type === 'turn' || (record.type === 'message' && record.message.role === 'assistant')) this.partial = undefined;
    switch (record.type) {
      case 'created':
        this.createdAt = record.ts;
        this.updatedAt = record.ts;
        if (record.title) this.title = record.title;
        break;
      case 'message':
        if (this.loaded) this.context.push(record.message);
        if (record.message.role === 'user' || record.message.role === 'assistant') this.messageCount++;
        if (!this.title && record.message.role === 'user') this.title = defaultTitle(textOf(record.message));
        break;
      case 'compaction':
        if (this.loaded) this.context = [summaryMessage(record.summary), ...this.context.slice(this.context.length - record.keep)];
        break;
      case 'title':
        this.title = record.title;
        break;
      case 'mode':
        this.mode = record.permissionMode;
        break;
      case 'model':
        this.choice = { ...(record.provider ? { provider: record.provider } : {}), ...(record.model ? { model: record.model } : {}) };
        break;
      case 'turn':
        if (record.status === 'started') this.openTurns.add(record.runId);
        else this.openTurns.delete(record.runId);
        if (record.agent !== undefined || record.provider !== undefined) {
          this.selection = { agent: record.agent, provider: record.provider, model: record.model };
        }
        break;
    }
  }

  /** How the most recent turn ended (or that it is running): what a client shows when no reply came. */
  lastTurn(): { runId: string; status: TurnStatus; ts: number; error?: string } | undefined {
    for (let i = this.transcript.length - 1; i >= 0; i--) {
      const r = this.transcript[i];
      if (r.type === 'turn') return { runId: r.runId, status: r.status, ts: r.ts, ...(r.error ? { error: r.error } : {}) };
    }
    return undefined;
  }

  /** Runs whose turn started but never ended (the engine died mid-turn). */
  unfinishedTurns(): string[] {
    return [...this.openTurns];
  }

  summary(): ChatSessionSummary {
    return {
      id: this.id,
      title: this.title || 'New chat',
      createdAt: this.createdAt,
      updatedAt: this.updatedAt,
      busy: this.busy,
      messageCount: this.messageCount,
      permissionMode: this.mode,
    };
  }

  /**
   * Keeps the client view of a loaded session in step with its records: a user or assistant
   * message adds one; a turn that did not complete marks its last reply, or its user message when
   * it failed before any reply (no server at the provider's URL).
   */
  private addView(r: SessionRecord): void {
    if (r.type === 'message' && (r.message.role === 'user' || r.message.role === 'assistant')) {
      const view = viewOf(r);
      this.viewAt.set(view.id, this.views.length);
      this.views.push(view);
      if (r.runId) this.lastOfRun.set(r.runId, view);
      for (const call of view.toolCalls ?? []) this.openCalls.set(call.callId, call);
    } else if (r.type === 'message' && r.message.role === 'tool') {
      for (const part of r.message.content) {
        const call = part.type === 'tool-result' ? this.openCalls.get(part.toolCallId) : undefined;
        if (!call || part.type !== 'tool-result') continue;
        this.openCalls.delete(part.toolCallId);
        call.ok = part.output.type !== 'error-text' && part.output.type !== 'error-json';
        call.result = clipMiddle(resultText(part.output), LIMITS.chatToolResultViewChars);
        const diff = r.diffs?.[part.toolCallId];
        if (diff) call.diff = diff;
      }
    } else if (r.type === 'turn' && r.status !== 'started' && r.status !== 'completed') {
      const last = this.lastOfRun.get(r.runId);
      if (last) {
        last.status = r.status as Exclude<TurnStatus, 'started' | 'completed'>;
        if (r.error) last.error = r.error;
      }
    }
  }

  /** User and assistant messages as clients show them, oldest first. */
  messages(): ChatMessageView[] {
    return [...this.views];
  }

  /**
   * The `limit` messages just before the message `before` (else the newest), oldest first, and
   * whether older ones remain: a page costs the same however long the session is.
   */
  page(limit: number, before?: string): { messages: ChatMessageView[]; hasMore: boolean } | undefined {
    const end = before === undefined ? this.views.length : this.viewAt.get(before);
    if (end === undefined) return undefined;
    const start = Math.max(0, end - limit);
    return { messages: this.views.slice(start, end), hasMore: start > 0 };
  }
}

export function viewOf(r: MessageRecord): ChatMessageView {
  const m = r.message;
  const view: ChatMessageView = { id: r.id, role: m.role as 'user' | 'assistant', text: r.text ?? textOf(m), ts: r.ts };
  if (r.runId) view.runId = r.runId;
  if (r.reasoning) view.reasoning = r.reasoning;
  if (Array.isArray(m.content)) {
    const calls = (m.content as any[]).filter((p) => p.type === 'tool-call');
    if (calls.length) view.toolCalls = calls.map((p) => ({ callId: p.toolCallId, name: p.toolName, args: p.input }));
    const images = (m.content as any[]).filter((p) => p.type === 'image').length;
    if (images) view.images = images;
  }
  return view;
}

/** `text` cut to `max` characters keeping its start and its end (a command's errors are at its end). */
function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max / 4);
  return `${text.slice(0, head)}\n[... ${text.length - max} characters not shown ...]\n${text.slice(text.length - (max - head))}`;
}

export function textOf(m: ModelMessage): string {
  if (typeof m.content === 'string') return m.content;
  return (m.content as any[])
    .filter((p) => p.type === 'text')
    .map((p) => p.text as string)
    .join('');
}

export function defaultTitle(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 60 ? line.slice(0, 59) + '…' : line;
}

/**
 * Makes a stored conversation valid to send: every tool call answered (a turn cut by a crash can
 * leave calls without results; providers reject that).
 */
export function repairContext(messages: readonly ModelMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    out.push(m);
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    const calls = (m.content as any[]).filter((p) => p.type === 'tool-call');
    if (!calls.length) continue;
    const next = messages[i + 1];
    const answered = new Set(next?.role === 'tool' ? (next.content as any[]).map((p) => p.toolCallId) : []);
    const missing = calls.filter((c) => !answered.has(c.toolCallId));
    if (!missing.length) continue;
    const results = missing.map((c) => ({
      type: 'tool-result' as const,
      toolCallId: c.toolCallId,
      toolName: c.toolName,
      output: { type: 'error-text' as const, value: `Tool "${c.toolName}" did not run: the turn was interrupted.` },
    }));
    if (next?.role === 'tool') {
      out.push({ role: 'tool', content: [...(next.content as any[]), ...results] });
      i++;
    } else {
      out.push({ role: 'tool', content: results });
    }
  }
  return out;
}
