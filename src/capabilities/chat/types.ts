/** Chat shapes other capabilities and the composition root consume (types only). */
import type { GenerationSettings } from '../../agent/types.js';

export type PermissionMode = 'ask' | 'allow';

/** What an agent name resolves to for a chat turn (implemented by the agents capability). */
export interface ResolvedAgent {
  name: string;
  system: string;
  /** Exact tool names; undefined means every registered tool. */
  tools?: string[];
  /** Provider name (config `name`); undefined means the turn's provider or the default. */
  provider?: string;
  /** Model id override on that provider. */
  model?: string;
  settings?: GenerationSettings;
  maxTurns?: number;
}

/** Resolves an agent name; throws an EngineError (404) naming what exists when it is unknown. */
export type ResolveAgent = (name: string) => Promise<ResolvedAgent>;

/** The permission gate's hooks chat drives (src/permissions/gate.ts implements them). */
export interface ChatGateHooks {
  /** Lets the gate read a session's mode per call. */
  setModeLookup(fn: (sessionId: string) => PermissionMode | undefined): void;
  /** Releases a prompt blocking the session (mode switched to allow). */
  releaseSession(sessionId: string): void;
  /** Every prompt waiting on a person (GET /api/chat/<id> shows the session's as `waiting`). */
  pending(): Array<{ callId: string; tool: string; display: string; sessionId?: string }>;
}

/** A session's own provider and model (the picker); a field left out means the default provider, or the provider's own model. */
export interface ModelChoice {
  provider?: string;
  model?: string;
}

export interface ChatSessionSummary {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  busy: boolean;
  messageCount: number;
  permissionMode?: PermissionMode;
}

/** A message as clients display it. */
export interface ChatMessageView {
  id: string;
  role: 'user' | 'assistant';
  text: string;
  ts: number;
  runId?: string;
  reasoning?: string;
  toolCalls?: ChatToolCallView[];
  images?: number;
  /** On the last message of a turn that did not complete: its last reply, or its user message when no reply came. */
  status?: 'stopped' | 'failed' | 'interrupted' | 'max_turns';
  error?: string;
}

/** A tool call as clients display it; `ok` and `result` once it was answered (a call cut by a crash has neither). */
export interface ChatToolCallView {
  callId: string;
  name: string;
  args: unknown;
  /** false: the call failed (refused, denied, threw); `result` is then the error. */
  ok?: boolean;
  /** What the model got, cut to LIMITS.chatToolResultViewChars (its start and its end). */
  result?: string;
  /** A file write's unified diff (edit_file, write_file, multi_edit). */
  diff?: string;
}

export interface QueuedMessage {
  id: string;
  message: string;
  queuedAt: number;
}
