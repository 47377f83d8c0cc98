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
import type { PermissionMode } from './types.js';

export type TurnStatus = 'started' | 'completed' | 'stopped' | 'failed' | 'interrupted' | 'max_turns';

export type SessionRecord =
  | { type: 'created'; ts: number; title?: string }
  | { type: 'message'; id: string; ts: number; runId?: string; message: ModelMessage; reasoning?: string; text?: string }
  | { type: 'turn'; ts: number; runId: string; status: TurnStatus; error?: string; agent?: string; provider?: string; model?: string }
  | { type: 'compaction'; ts: number; runId?: string; summary: string; keep: number }
  /** Reply text streamed since the last save, appended every chatPartialFlushMs while a step streams; superseded by the step's message. */
  | { type: 'partial'; ts: number; runId: string; text?: string; reasoning?: string }
  | { type: 'title'; ts: number; title: string }
  | { type: 'mode'; ts: number; permissionMode: PermissionMode };

export class ChatStore {
  constructor(private readonly home: Home) {}

  get dir(): string {
    return this.home.path(HOME_LAYOUT.chat);
  }

  file(sessionId: string): string {
    return path.join(this.dir, `${sessionId}.jsonl`);
  }

  /** Appends records to a session file, in order (one write; serialized per file). */
  append(sessionId: string, ...records: SessionRecord[]): Promise<void> {
    const file = this.file(sessionId);
    const text = records.map((r) => JSON.stringify(r) + '\n').join('');
    return this.home.serialize(file, async () => {
      await fs.mkdir(this.dir, { recursive: true });
      await fs.appendFile(file, text);
    });
  }

  /** Every session on disk with its records. */
  async loadAll(): Promise<Map<string, SessionRecord[]>> {
    const out = new Map<string, SessionRecord[]>();
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
      throw err;
    }
    for (const name of names) {
      if (!name.endsWith('.jsonl')) continue;
      const text = await fs.readFile(path.join(this.dir, name), 'utf8');
      out.set(name.slice(0, -'.jsonl'.length), parseJsonl<SessionRecord>(text));
    }
    return out;
  }
}
