/**
 * Workflow files: `<home>/workflows/<id>.json`, hand-editable and watched. Every file is read and
 * validated on load; a file the engine rejects stays listed with its `error` (and never crashes
 * anything). Saves are atomic and recorded as versions (history kind `workflow`); an outside edit is
 * picked up and announced as `workflows.changed` (no runId).
 *
 * Who made each file's current content is kept beside it (src/kernel/provenance.ts, kind `workflow`):
 * a save names its author; a hand edit is a person's. A model's change to a person's enabled,
 * triggered workflow is not written over it: it waits in `workflows/.proposed/<id>.json` until a
 * person saves the workflow (PUT /api/workflows/<id>) or dismisses the proposal.
 *
 * Where the texts live is the backend's (`WorkflowBackend`): the home's files here, or a pool's
 * database (src/pool/workflow-backend.ts), where a row edited by hand is judged exactly like a file.
 */
import { LIMITS } from '../../kernel/limits.js';
import { badRequest, EngineError, notFound } from '../../kernel/errors.js';
import type { Emit } from '../../kernel/bus.js';
import { PERSON, type ModelAuthor, type Provenance } from '../../kernel/provenance.js';
import type { HistoryAdapter, HistoryRecorder } from '../history/types.js';
import { formatVersionError, validateWorkflow, WORKFLOW_ID, type ValidateContext } from './validate.js';
import type { Proposal, StoredWorkflow, ValidationResult, WorkflowBackend, WorkflowDocument, WorkflowListItem } from './types.js';

export interface Entry {
  id: string;
  /** The accepted document. */
  doc?: WorkflowDocument;
  /** Why the engine rejects the file. */
  error?: string;
  warnings: string[];
  /** What the file held when read (own writes are recognised by it). */
  text: string;
  group: string | null;
  name?: string;
}

export interface StoreDeps {
  backend: WorkflowBackend;
  emit: Emit;
  history: () => HistoryRecorder | undefined;
  validateContext: ValidateContext;
  log: (line: string) => void;
}

export type { Proposal } from './types.js';


export class WorkflowStore {
  private readonly entries = new Map<string, Entry>();
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<(ids: string[]) => void>();
  /** Reloads and writes run one at a time, so a reload never reads around a save and undoes it. */
  private queue: Promise<unknown> = Promise.resolve();

  private closed = false;

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  constructor(private readonly deps: StoreDeps) {}

  private get backend(): WorkflowBackend {
    return this.deps.backend;
  }

  async init(): Promise<void> {
    await this.reloadNow();
    await this.backend.watch(() => this.scheduleReload());
  }

  /** Called with the ids that changed (saved, deleted or edited outside). */
  onChange(fn: (ids: string[]) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Stops watching, and waits for a reload or a save under way: none starts after. */
  async close(): Promise<void> {
    this.closed = true;
    this.backend.close();
    if (this.timer) clearTimeout(this.timer);
    await this.queue;
  }

  private scheduleReload(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.reloadAll().catch((err) => this.deps.log(`workflows: reload failed: ${(err as Error).message}`)), LIMITS.workflowWatchDebounceMs);
    this.timer.unref?.();
  }

  /** Re-reads every file; announces the ids whose text changed since the engine last read or wrote them. */
  reloadAll(): Promise<string[]> {
    return this.exclusive(() => (this.closed ? Promise.resolve([]) : this.reloadNow()));
  }

  private async reloadNow(): Promise<string[]> {
    const stored = await this.backend.list();
    const seen = new Set<string>();
    const changed: string[] = [];
    for (const item of stored) {
      seen.add(item.id);
      const entry = this.judgeStored(item);
      const before = this.entries.get(item.id);
      if (before?.text === entry.text) continue;
      this.entries.set(item.id, entry);
      changed.push(item.id);
    }
    for (const id of [...this.entries.keys()]) {
      if (!seen.has(id)) {
        this.entries.delete(id);
        changed.push(id);
      }
    }
    if (changed.length) this.announce(changed, 'edited');
    return changed;
  }

  private announce(ids: string[], action: string): void {
    this.deps.emit('workflows.changed', { ids, action });
    for (const fn of this.listeners) {
      try {
        fn(ids);
      } catch (err) {
        this.deps.log(`workflows: a change listener failed: ${(err as Error).message}`);
      }
    }
  }

  /** Judges one stored text; a text past the size limit is refused unread. Never throws for content. */
  private judgeStored(item: StoredWorkflow): Entry {
    if ('tooLarge' in item) return { id: item.id, error: `the file is ${item.tooLarge} bytes; a workflow file holds at most ${LIMITS.workflowDocBytes}`, warnings: [], text: item.stamp, group: null };
    return judge(item.id, item.text, this.deps.validateContext);
  }

  list(): WorkflowListItem[] {
    return [...this.entries.values()]
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((e) => (e.doc ? { ...e.doc, ...(e.warnings.length ? { warnings: e.warnings } : {}) } : { id: e.id, group: e.group, error: e.error!, ...(e.name ? { name: e.name } : {}) }));
  }

  ids(): string[] {
    return [...this.entries.keys()];
  }

  entry(id: string): Entry | undefined {
    return this.entries.get(id);
  }

  /** The accepted document, or a 404 / 400 saying why not. */
  require(id: string): WorkflowDocument {
    const e = this.entries.get(id);
    if (!e) throw notFound(`no workflow "${id}"; GET /api/workflows lists them`);
    if (!e.doc) throw badRequest(`workflow "${id}" is rejected: ${e.error}`);
    return e.doc;
  }

  all(): WorkflowDocument[] {
    return [...this.entries.values()].flatMap((e) => (e.doc ? [e.doc] : []));
  }

  validate(input: unknown) {
    return validateWorkflow(input, this.deps.validateContext);
  }

  /** Who made the workflow's current content (a person when unknown). */
  authorOf(id: string): Provenance {
    const e = this.entries.get(id);
    return e ? this.backend.authorOf(id, e.text) : PERSON;
  }

  /** Holds a model's version of `id` for a person's review; the saved workflow is untouched. */
  async propose(id: string, doc: WorkflowDocument, author: ModelAuthor): Promise<void> {
    checkId(id);
    await this.backend.putProposal(id, { doc, author });
  }

  async proposal(id: string): Promise<Proposal | undefined> {
    checkId(id);
    const p = await this.backend.proposal(id).catch(() => undefined);
    return p && p.doc && p.author?.by === 'model' ? p : undefined;
  }

  async dismissProposal(id: string): Promise<boolean> {
    checkId(id);
    const had = (await this.proposal(id)) !== undefined;
    await this.backend.removeProposal(id);
    return had;
  }

  /** Validates and saves as `author` (a person unless a tool says otherwise); throws SaveRefused (400) with the fix list. */
  async save(id: string, input: unknown, note?: string, author: Provenance = PERSON): Promise<{ doc: WorkflowDocument; warnings: string[] }> {
    checkId(id);
    const body = input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : undefined;
    if (body && body.id !== id) {
      throw new SaveRefused(id, { ok: false, errors: [`the document's id ${JSON.stringify(body.id)} must equal the id in the URL ("${id}")`], warnings: [] });
    }
    const result = this.validate(input);
    if (!result.ok || !result.doc) throw new SaveRefused(id, result);
    const text = JSON.stringify(result.doc, null, 2) + '\n';
    await this.exclusive(() => this.write(id, text, note ?? 'saved', author));
    // A person's save supersedes whatever a model proposed for this workflow.
    if (author.by === 'person') await this.dismissProposal(id);
    return { doc: result.doc, warnings: result.warnings };
  }

  /** Writes a text as `author` (or, given `{carry}`, as whoever wrote that text before it). */
  private async write(id: string, text: string, note: string, author: Provenance | { carry: string }): Promise<void> {
    await this.backend.write(id, text, author);
    this.entries.set(id, judge(id, text, this.deps.validateContext));
    await Promise.resolve(this.deps.history()?.record('workflow', id, text, note)).catch((err) => this.deps.log(`workflows: history not recorded for ${id}: ${(err as Error).message}`));
    this.announce([id], 'saved');
  }

  async remove(id: string): Promise<void> {
    checkId(id);
    if (!this.entries.has(id)) throw notFound(`no workflow "${id}"; GET /api/workflows lists them`);
    await this.exclusive(async () => {
      await this.backend.remove(id);
      this.entries.delete(id);
    });
    await this.dismissProposal(id);
    this.announce([id], 'deleted');
  }

  /** Moves a workflow to a group: the one save path a rejected (e.g. format 1) document can still use (seed §9). */
  async setGroup(id: string, group: string | null): Promise<void> {
    checkId(id);
    const e = this.entries.get(id);
    if (!e) throw notFound(`no workflow "${id}"; GET /api/workflows lists them`);
    let raw: unknown;
    try {
      raw = JSON.parse(e.text);
    } catch {
      throw badRequest(`workflow file ${id}.json is not valid JSON, so its group cannot be set; fix the file by hand or save it again with PUT /api/workflows/${id}`);
    }
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw badRequest(`workflow file ${id}.json does not hold a JSON object; save it again with PUT /api/workflows/${id}`);
    (raw as Record<string, unknown>).group = group;
    const text = JSON.stringify(raw, null, 2) + '\n';
    // A group move shows no content: whoever wrote the workflow still did.
    await this.exclusive(() => this.write(id, text, group === null ? 'moved out of its group' : `moved to group ${group}`, { carry: e.text }));
  }

  /** History restores write the stored text back (re-judged like a hand edit). */
  historyAdapter(): HistoryAdapter {
    return {
      read: async (name) => {
        const known = this.entries.get(name)?.text;
        if (known !== undefined) return known;
        const stored = WORKFLOW_ID.test(name) ? await this.backend.read(name).catch(() => undefined) : undefined;
        return stored && 'text' in stored ? stored.text : undefined;
      },
      write: async (name, content) => {
        checkId(name);
        await this.exclusive(async () => {
          // A restored text is judged like a hand edit: its author is whoever wrote exactly that text.
          await this.backend.write(name, content, undefined);
          this.entries.set(name, judge(name, content, this.deps.validateContext));
        });
        this.announce([name], 'restored');
      },
    };
  }
}

/** A save refused by validation: 400 with the fix list. */
export class SaveRefused extends EngineError {
  constructor(
    readonly id: string,
    readonly result: ValidationResult,
  ) {
    super(400, `workflow "${id}" was not saved; fix: ${result.errors.map((e, i) => `(${i + 1}) ${e}`).join('; ')}`);
  }
}

function checkId(id: string): void {
  if (!WORKFLOW_ID.test(id) || id.length > LIMITS.workflowIdChars) {
    throw badRequest(`workflow id "${id.slice(0, 80)}" must be 1-${LIMITS.workflowIdChars} letters, digits, dot, dash or underscore, starting with a letter or digit`);
  }
}

/** Parses and validates one file's text; any nonsense becomes an `error`, never an exception. */
export function judge(id: string, text: string, ctx: ValidateContext): Entry {
  let raw: unknown;
  try {
    raw = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    return { id, error: `the file is not valid JSON (${(err as Error).message}); fix it by hand or save it again`, warnings: [], text, group: null };
  }
  const obj = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const group = typeof obj.group === 'string' ? obj.group : null;
  const name = typeof obj.name === 'string' ? obj.name : undefined;
  const fv = formatVersionError(obj.formatVersion);
  if (fv) return { id, error: fv, warnings: [], text, group, name };
  if (obj.id !== id) return { id, error: `the file is ${id}.json but its id is ${JSON.stringify(obj.id)}; make them equal`, warnings: [], text, group, name };
  let result: ReturnType<typeof validateWorkflow>;
  try {
    result = validateWorkflow(raw, ctx);
  } catch (err) {
    return { id, error: `the engine could not read this workflow: ${(err as Error).message}`, warnings: [], text, group, name };
  }
  if (!result.ok || !result.doc) return { id, error: result.errors.join('; '), warnings: result.warnings, text, group, name };
  return { id, doc: result.doc, warnings: result.warnings, text, group, name };
}
