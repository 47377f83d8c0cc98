/**
 * Chat sessions on disk: one append-only JSONL file a session, `<home>/chat/<sessionId>.jsonl`.
 * Records are messages (the model's own message shape), turn boundaries, compactions, renames and
 * mode changes; a session is rebuilt by replaying its records. The reply being streamed is saved
 * as `partial` records every chatPartialFlushMs, so a crash loses at most that much of it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ModelMessage } from 'ai';
import { HOME_LAYOUT, type Home } from '../../kernel/home.js';
import { parseJsonl } from '../../kernel/jsonl.js';
import { LIMITS } from '../../kernel/limits.js';
import type { SessionSnapshot } from './session.js';
import type { PermissionMode } from './types.js';

/** `<home>/chat/index.json`: each session's summary as of `size` bytes of its file (a cache; rebuilt when missing). */
export interface ChatIndex {
  version: 1;
  sessions: Record<string, SessionSnapshot & { size: number }>;
}

export type TurnStatus = 'started' | 'completed' | 'stopped' | 'failed' | 'interrupted' | 'max_turns';

export type SessionRecord =
  | { type: 'created'; ts: number; title?: string }
  /** `diffs`: on a tool message, the unified diff of each file write by call id (for people; never sent to a model). */
  | { type: 'message'; id: string; ts: number; runId?: string; message: ModelMessage; reasoning?: string; text?: string; diffs?: Record<string, string> }
  | { type: 'turn'; ts: number; runId: string; status: TurnStatus; error?: string; agent?: string; provider?: string; model?: string }
  | { type: 'compaction'; ts: number; runId?: string; summary: string; keep: number }
  /** Reply text streamed since the last save, appended every chatPartialFlushMs while a step streams; superseded by the step's message. */
  | { type: 'partial'; ts: number; runId: string; text?: string; reasoning?: string }
  | { type: 'title'; ts: number; title: string }
  | { type: 'mode'; ts: number; permissionMode: PermissionMode }
  /** The session's own provider and model for its next turns (absent: the default provider, its own model). */
  | { type: 'model'; ts: number; provider?: string; model?: string };

export class ChatStore {
  constructor(
    private readonly home: Home,
    /** The exit mask (src/kernel/redact.ts): transcripts never hold a stored secret value. */
    private readonly redactJson: (json: string) => string = (json) => json,
  ) {}

  get dir(): string {
    return this.home.path(HOME_LAYOUT.chat);
  }

  file(sessionId: string): string {
    return path.join(this.dir, `${sessionId}.jsonl`);
  }

  /** The JSONL text of records (one line each). */
  encode(records: SessionRecord[]): string {
    return records.map((r) => this.redactJson(JSON.stringify(r)) + '\n').join('');
  }

  /** Appends encoded records to a session file, in order (one write; serialized per file). */
  appendText(sessionId: string, text: string): Promise<void> {
    const file = this.file(sessionId);
    return this.home.serialize(file, async () => {
      await fs.mkdir(this.dir, { recursive: true });
      await fs.appendFile(file, text);
    });
  }

  /** The records of a session file from byte `offset` on (0: all of them); waits for appends in flight. */
  read(sessionId: string, offset = 0): Promise<SessionRecord[]> {
    const file = this.file(sessionId);
    return this.home.serialize(file, async () => {
      const handle = await fs.open(file, 'r');
      try {
        const { size } = await handle.stat();
        const buf = Buffer.alloc(Math.max(0, size - offset));
        if (buf.length) await handle.read(buf, 0, buf.length, offset);
        return parseJsonl<SessionRecord>(buf.toString('utf8'));
      } finally {
        await handle.close();
      }
    });
  }

  /** Every session file with its size. */
  async files(): Promise<Array<{ id: string; size: number }>> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const ids = names.filter((n) => n.endsWith('.jsonl')).map((n) => n.slice(0, -'.jsonl'.length));
    // Stats in parallel batches: a thousand sequential stats are most of a cold start-up.
    const out: Array<{ id: string; size: number }> = [];
    for (let i = 0; i < ids.length; i += LIMITS.chatIndexStatBatch) {
      const batch = ids.slice(i, i + 64);
      const sizes = await Promise.all(batch.map((id) => fs.stat(this.file(id)).then((st) => st.size, () => -1)));
      batch.forEach((id, k) => sizes[k] >= 0 && out.push({ id, size: sizes[k] }));
    }
    return out;
  }

  async readIndex(): Promise<ChatIndex['sessions']> {
    try {
      const index = await this.home.readJson<ChatIndex | null>(path.join(this.dir, 'index.json'), null);
      return index?.version === 1 && index.sessions && typeof index.sessions === 'object' ? index.sessions : {};
    } catch {
      return {}; // a corrupt cache is rebuilt from the session files
    }
  }

  writeIndex(sessions: ChatIndex['sessions']): Promise<void> {
    return this.home.writeAtomic(path.join(this.dir, 'index.json'), this.redactJson(JSON.stringify({ version: 1, sessions } satisfies ChatIndex, null, 2)) + '\n');
  }
}
