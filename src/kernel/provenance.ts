/**
 * Provenance: who made the current content of something saved that runs or grants later (a
 * workflow, its cron and webhook triggers, an agent, a skill, an MCP server entry, a vault schema, a
 * board configuration, a dashboard's prompt and refresh schedule). A person (an HTTP route from a
 * client that sends the whole content, or a hand edit of the file) or a model (a tool call, with the
 * run, the session's permission mode and a snapshot of the permission rules in force when it saved).
 *
 * The promise it serves (docs/security.md): nothing a model saves can do later what its author could
 * not do then. Unattended, a model-authored thing's tool calls are gated as its author would have
 * been (src/permissions/authorship.ts): a call that would have prompted fails instead.
 *
 * Where it lives: `<home>/provenance.json`, one record per `<kind>/<id>` holding the sha256 of the
 * content the model saved. The content itself stays a plain, hand-editable file; when its text no
 * longer hashes to the record, a person edited it by hand and it is a person's. No record: a person's.
 *
 * Adopting it for a new kind (a few lines):
 *   1. on a save through a tool: `await provenance.record(kind, id, text, await authorOf(ctx))`
 *      (`authorOf` is the permission gate's, so the author's mode and rules are snapshotted);
 *   2. on a save through a route that shows the whole content: `await provenance.record(kind, id, text, PERSON)`;
 *      a metadata-only change (a group, an order) keeps the author: `provenance.carry(kind, id, before, after)`;
 *   3. where it runs: `authority(kind, id, provenance.of(kind, id, text))` joins the `authors` of the
 *      tool context its calls run under (`ToolContext.authors`), and the gate does the rest.
 */
import { createHash } from 'node:crypto';
import type { Home } from './home.js';

/** A permission rule as the author had it (the same shape as permissions.json's rules). */
export interface RuleSnapshot {
  key: string;
  decision: 'allow' | 'deny';
}

export interface ModelAuthor {
  by: 'model';
  /** The run whose tool call saved it (a chat turn, a workflow run). */
  runId?: string;
  sessionId?: string;
  /** The chat's permission mode then; `ask` whenever nobody was watching. */
  mode: 'ask' | 'allow';
  /** The permission rules in force then. */
  rules: RuleSnapshot[];
  /** ISO time of the save. */
  at: string;
}

export type Provenance = { by: 'person' } | ModelAuthor;

export const PERSON: Provenance = Object.freeze({ by: 'person' as const });

/** A model-authored thing a call runs under: what it is (for the refusal sentence) and its author. */
export interface Authority {
  kind: string;
  id: string;
  author: ModelAuthor;
}

/** The authority of a saved thing, or nothing when a person made it. */
export function authority(kind: string, id: string, p: Provenance): Authority[] {
  return p.by === 'model' ? [{ kind, id, author: p }] : [];
}

/** Joins authority lists (a child run inherits its parent's, a model-authored agent adds its own). */
export function joinAuthorities(...lists: Array<readonly Authority[] | undefined>): Authority[] | undefined {
  const out: Authority[] = [];
  for (const list of lists) for (const a of list ?? []) if (!out.some((b) => b.kind === a.kind && b.id === a.id)) out.push(a);
  return out.length ? out : undefined;
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface Stored {
  sha256: string;
  author: ModelAuthor;
}

const FILE = 'provenance.json';

export class ProvenanceStore {
  private records = new Map<string, Stored>();
  private loaded = false;

  constructor(private readonly home: Home) {}

  async init(): Promise<void> {
    if (this.loaded) return;
    const raw = await this.home.readJson<Record<string, Stored>>(FILE, {});
    for (const [key, value] of Object.entries(raw)) {
      if (value && typeof value.sha256 === 'string' && value.author?.by === 'model') this.records.set(key, value);
    }
    this.loaded = true;
  }

  /** Who made `text`, the current content of `<kind>/<id>`: the model when it saved exactly this text, else a person. */
  of(kind: string, id: string, text: string): Provenance {
    const r = this.records.get(`${kind}/${id}`);
    return r && r.sha256 === sha256(text) ? r.author : PERSON;
  }

  /** Records who saved `text` as the content of `<kind>/<id>`; a person's save clears a model's record. */
  async record(kind: string, id: string, text: string, p: Provenance): Promise<void> {
    const key = `${kind}/${id}`;
    if (p.by === 'model') this.records.set(key, { sha256: sha256(text), author: p });
    else if (!this.records.delete(key)) return;
    await this.save();
  }

  /** A change that shows no content (a group move): the author of `before` stays the author of `after`. */
  async carry(kind: string, id: string, before: string, after: string): Promise<void> {
    const p = this.of(kind, id, before);
    if (p.by === 'model') await this.record(kind, id, after, p);
  }

  async forget(kind: string, id: string): Promise<void> {
    if (this.records.delete(`${kind}/${id}`)) await this.save();
  }

  private save(): Promise<void> {
    return this.home.writeJson(FILE, Object.fromEntries(this.records));
  }
}
