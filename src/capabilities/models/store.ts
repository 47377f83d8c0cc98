/**
 * Downloaded models under `<home>/models/<org>/<repo>/`, each with a `.workbench-model.json`
 * manifest (commit, dtypes, files with sizes and digests) written once its files are verified.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { EngineError } from '../../kernel/errors.js';
import { writeFileAtomic } from '../../kernel/home.js';
import { checkRepo, type LocalModel } from './types.js';

const MANIFEST = '.workbench-model.json';

interface Manifest { repo: string; commit: string; dtypes: string[]; files: Record<string, { size: number; sha256?: string }>; updatedAt: string }

export class ModelStore {
  constructor(readonly root: string) {}

  dir(repo: string): string {
    return path.join(this.root, ...checkRepo(repo).split('/'));
  }

  private async manifest(repo: string): Promise<Manifest | undefined> {
    try {
      return JSON.parse(await fs.readFile(path.join(this.dir(repo), MANIFEST), 'utf8')) as Manifest;
    } catch {
      return undefined;
    }
  }

  /** Adds a verified dtype (and its files) to a repo's manifest; a new commit starts a fresh manifest. */
  async record(repo: string, add: { commit: string; dtype: string; files: { name: string; size: number; sha256?: string }[] }): Promise<void> {
    const old = await this.manifest(repo);
    const m: Manifest = old && old.commit === add.commit ? old : { repo, commit: add.commit, dtypes: [], files: {}, updatedAt: '' };
    if (!m.dtypes.includes(add.dtype)) m.dtypes.push(add.dtype);
    for (const f of add.files) m.files[f.name] = { size: f.size, ...(f.sha256 ? { sha256: f.sha256 } : {}) };
    m.updatedAt = new Date().toISOString();
    await writeFileAtomic(path.join(this.dir(repo), MANIFEST), JSON.stringify(m, null, 2));
  }

  async get(repo: string): Promise<LocalModel | undefined> {
    const m = await this.manifest(repo);
    if (!m) return undefined;
    return { repo, commit: m.commit, dtypes: m.dtypes, bytes: Object.values(m.files).reduce((n, f) => n + f.size, 0), path: this.dir(repo) };
  }

  async list(): Promise<LocalModel[]> {
    const out: LocalModel[] = [];
    for (const org of await fs.readdir(this.root).catch(() => [] as string[])) {
      for (const name of await fs.readdir(path.join(this.root, org)).catch(() => [] as string[])) {
        const m = await this.get(`${org}/${name}`).catch(() => undefined);
        if (m) out.push(m);
      }
    }
    return out.sort((a, b) => a.repo.localeCompare(b.repo));
  }

  /** Removes a repo's folder (and the org folder when it empties). */
  async remove(repo: string): Promise<void> {
    const dir = this.dir(repo);
    const exists = await fs.stat(dir).then(() => true, () => false);
    if (!exists) throw new EngineError(404, `${repo} is not downloaded; GET /api/models lists the downloaded models`);
    await fs.rm(dir, { recursive: true, force: true });
    await fs.rmdir(path.dirname(dir)).catch(() => undefined);
  }
}
