/**
 * The embedded backends of the workflows capability: definitions as `<home>/workflows/<id>.json`
 * (watched, so a hand edit is seen), who wrote them in the home's provenance store, proposals in
 * `workflows/.proposed/`, the cron state in `<home>/cron-state.json`. A pool keeps the same things
 * in its database (src/pool).
 */
import { watch, type FSWatcher, promises as fs } from 'node:fs';
import path from 'node:path';
import { mkdirp, type Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import type { Provenance, ProvenanceStore } from '../../kernel/provenance.js';
import type { CronStateStore, Proposal, StoredWorkflow, WorkflowBackend } from './types.js';

export const WORKFLOWS_DIR = 'workflows';
export const CRON_STATE_FILE = 'cron-state.json';
const KIND = 'workflow';

export class FileWorkflowBackend implements WorkflowBackend {
  private watcher: FSWatcher | undefined;

  constructor(private readonly deps: { home: Home; provenance: ProvenanceStore; log: (line: string) => void; watch?: boolean }) {}

  get dir(): string {
    return this.deps.home.path(WORKFLOWS_DIR);
  }

  file(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  private proposalFile(id: string): string {
    return path.join(this.dir, '.proposed', `${id}.json`);
  }

  async watch(changed: () => void): Promise<void> {
    if (this.deps.watch === false) return;
    await mkdirp(this.dir);
    try {
      this.watcher = watch(this.dir, () => changed());
      this.watcher.on('error', (err) => this.deps.log(`workflows: the folder watcher stopped: ${err.message}`));
    } catch (err) {
      this.deps.log(`workflows: cannot watch ${this.dir}: ${(err as Error).message}; outside edits are seen after a restart`);
    }
  }

  /** Reads only: a reload under way as the engine closes must not make the folder again in a home being removed. */
  async list(): Promise<StoredWorkflow[]> {
    let names: string[] = [];
    try {
      names = (await fs.readdir(this.dir)).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
    } catch {
      names = [];
    }
    const out: StoredWorkflow[] = [];
    for (const name of names) {
      const item = await this.read(name.slice(0, -5));
      if (item) out.push(item);
    }
    return out;
  }

  /** One file; undefined when it vanished meanwhile (or is no file). */
  async read(id: string): Promise<StoredWorkflow | undefined> {
    const file = this.file(id);
    try {
      const info = await fs.stat(file);
      if (!info.isFile()) return undefined;
      if (info.size > LIMITS.workflowDocBytes) return { id, tooLarge: info.size, stamp: `size:${info.size}:${info.mtimeMs}` };
      return { id, text: await fs.readFile(file, 'utf8') };
    } catch {
      return undefined;
    }
  }

  async write(id: string, text: string, author: Provenance | { carry: string } | undefined): Promise<void> {
    // Recorded first: a cron fire between the write and the record would run a model's text as a person's.
    if (author && 'carry' in author) await this.deps.provenance.carry(KIND, id, author.carry, text);
    else if (author) await this.deps.provenance.record(KIND, id, text, author);
    await this.deps.home.writeAtomic(this.file(id), text);
  }

  async remove(id: string): Promise<void> {
    await fs.rm(this.file(id), { force: true });
    await this.deps.provenance.forget(KIND, id);
  }

  authorOf(id: string, text: string): Provenance {
    return this.deps.provenance.of(KIND, id, text);
  }

  async proposal(id: string): Promise<Proposal | undefined> {
    return this.deps.home.readJson<Proposal | undefined>(this.proposalFile(id), undefined);
  }

  async putProposal(id: string, proposal: Proposal): Promise<void> {
    await mkdirp(path.dirname(this.proposalFile(id)));
    await this.deps.home.writeJson(this.proposalFile(id), proposal);
  }

  async removeProposal(id: string): Promise<void> {
    await fs.rm(this.proposalFile(id), { force: true });
  }

  close(): void {
    this.watcher?.close();
  }
}

export function fileCronState(home: Home): CronStateStore {
  return {
    async load() {
      const file = await home.readJson<Record<string, number>>(CRON_STATE_FILE, {});
      return file && typeof file === 'object' ? file : {};
    },
    save: (last) => home.writeJson(CRON_STATE_FILE, last),
  };
}
