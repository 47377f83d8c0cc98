/**
 * Workflow definitions in a pool: `engine_pool.workflows` holds each definition's text exactly as
 * a file would, and beside it who wrote that text (`author`: the sha256 of the text a model saved,
 * with the model's run, mode and rules). A row edited by hand (psql) is announced by the table's
 * trigger and judged like a hand-edited file: validated, and a person's, since its text no longer
 * hashes to the model's record. Proposals (a model's change held for review) have a table too.
 */
import { LIMITS } from '../kernel/limits.js';
import { PERSON, sha256, type ModelAuthor, type Provenance } from '../kernel/provenance.js';
import type { Proposal, StoredWorkflow, WorkflowBackend } from '../capabilities/workflows/types.js';
import type { PoolDb } from './db.js';
import { SCHEMA } from './schema.js';

interface Author {
  sha256: string;
  author: ModelAuthor;
}

interface Row {
  id: string;
  text: string | null;
  size: number;
  author: Author | null;
  updated_at: Date;
}

export class PoolWorkflowBackend implements WorkflowBackend {
  /** Who wrote each definition's text, as last read (authorOf is asked synchronously, at every run). */
  private readonly authors = new Map<string, Author>();
  private changed: (() => void) | undefined;

  constructor(private readonly db: PoolDb) {}

  /** The table's trigger announced a change (a save anywhere in the pool, or a hand edit). */
  notify(): void {
    this.changed?.();
  }

  watch(changed: () => void): void {
    this.changed = changed;
  }

  private stored(row: Row): StoredWorkflow {
    if (row.author?.author?.by === 'model' && typeof row.author.sha256 === 'string') this.authors.set(row.id, row.author);
    else this.authors.delete(row.id);
    if (row.text === null) return { id: row.id, tooLarge: row.size, stamp: `size:${row.size}:${row.updated_at.getTime()}` };
    return { id: row.id, text: row.text };
  }

  // A text past the limit is not even fetched, as a file past it is not read.
  private readonly select = `SELECT id, CASE WHEN octet_length(text) <= ${LIMITS.workflowDocBytes} THEN text END AS text, octet_length(text) AS size, author, updated_at FROM ${SCHEMA}.workflows`;

  async list(): Promise<StoredWorkflow[]> {
    const rows = await this.db.query<Row>(this.select);
    const seen = new Set(rows.map((r) => r.id));
    for (const id of this.authors.keys()) if (!seen.has(id)) this.authors.delete(id);
    return rows.map((r) => this.stored(r));
  }

  async read(id: string): Promise<StoredWorkflow | undefined> {
    const row = (await this.db.query<Row>(`${this.select} WHERE id = $1`, [id]))[0];
    return row ? this.stored(row) : undefined;
  }

  async write(id: string, text: string, author: Provenance | { carry: string } | undefined): Promise<void> {
    // The text and its author land together in one row: no moment where a model's text reads as a person's.
    const by: Provenance | undefined = author && 'carry' in author ? this.authorOf(id, author.carry) : author;
    const record: Author | null = by?.by === 'model' ? { sha256: sha256(text), author: by } : null;
    if (author === undefined) {
      await this.db.query(`INSERT INTO ${SCHEMA}.workflows (id, text) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET text = EXCLUDED.text, updated_at = now()`, [id, text]);
      return;
    }
    await this.db.query(`INSERT INTO ${SCHEMA}.workflows (id, text, author) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET text = EXCLUDED.text, author = EXCLUDED.author, updated_at = now()`, [id, text, record]);
    if (record) this.authors.set(id, record);
    else this.authors.delete(id);
  }

  async remove(id: string): Promise<void> {
    await this.db.query(`DELETE FROM ${SCHEMA}.workflows WHERE id = $1`, [id]);
    this.authors.delete(id);
  }

  authorOf(id: string, text: string): Provenance {
    const a = this.authors.get(id);
    return a && a.sha256 === sha256(text) ? a.author : PERSON;
  }

  async proposal(id: string): Promise<Proposal | undefined> {
    return (await this.db.query<{ proposal: Proposal }>(`SELECT proposal FROM ${SCHEMA}.workflow_proposals WHERE id = $1`, [id]))[0]?.proposal;
  }

  async putProposal(id: string, proposal: Proposal): Promise<void> {
    await this.db.query(`INSERT INTO ${SCHEMA}.workflow_proposals (id, proposal) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET proposal = EXCLUDED.proposal`, [id, proposal]);
  }

  async removeProposal(id: string): Promise<void> {
    await this.db.query(`DELETE FROM ${SCHEMA}.workflow_proposals WHERE id = $1`, [id]);
  }

  close(): void {
    this.changed = undefined;
  }
}
