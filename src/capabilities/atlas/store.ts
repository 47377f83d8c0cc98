/**
 * Atlases on disk, in the home: `atlas/<id>.json` (the definition), `atlas/<id>.doc.json` (the last
 * complete document), `atlas/<id>/sources/<ref>.txt` (archived evidence behind citations). Writes
 * are atomic; a file that does not parse is listed with its error, never a crash.
 */
import { mkdir, readFile, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../kernel/home.js';
import type { AtlasDefinition, AtlasDocument } from './types.js';

export const ATLAS_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export class AtlasStore {
  /**
   * The last document read per atlas, with its file's mtime and size: the list asks for every
   * atlas's document and must not parse each again while none changed (issue 42). Callers never
   * change a document (a build writes a new one).
   */
  private readonly parsed = new Map<string, { mtimeMs: number; size: number; doc: AtlasDocument }>();

  constructor(readonly dir: string) {}

  private file(id: string, suffix: string): string {
    if (!ATLAS_ID.test(id)) throw new Error(`bad atlas id ${id}`);
    return path.join(this.dir, `${id}${suffix}`);
  }

  async ids(): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    return names.filter((n) => n.endsWith('.json') && !n.endsWith('.doc.json')).map((n) => n.slice(0, -5)).filter((id) => ATLAS_ID.test(id)).sort();
  }

  async definition(id: string): Promise<{ def?: AtlasDefinition; error?: string } | undefined> {
    const text = await this.text(id);
    if (text === undefined) return undefined;
    try {
      return { def: JSON.parse(text) as AtlasDefinition };
    } catch (err) {
      return { error: `atlas/${id}.json does not parse: ${(err as Error).message}` };
    }
  }

  async document(id: string): Promise<AtlasDocument | undefined> {
    const file = this.file(id, '.doc.json');
    const st = await stat(file).catch(() => undefined);
    const kept = this.parsed.get(id);
    if (st && kept?.mtimeMs === st.mtimeMs && kept.size === st.size) return kept.doc;
    this.parsed.delete(id);
    const text = st && (await readFile(file, 'utf8').catch(() => undefined));
    if (!st || text === undefined) return undefined;
    try {
      const doc = JSON.parse(text) as AtlasDocument;
      // Kept under the size read: a file replaced between the stat and the read is read again next time.
      if (Buffer.byteLength(text) === st.size) this.parsed.set(id, { mtimeMs: st.mtimeMs, size: st.size, doc });
      return doc;
    } catch {
      return undefined;
    }
  }

  /** Saves a definition; answers the text written (what version history records). */
  async saveDefinition(def: AtlasDefinition): Promise<string> {
    const text = JSON.stringify(def, null, 2) + '\n';
    await this.saveText(def.id, text);
    return text;
  }

  /** The definition file's text as it is on disk (version history reads and restores it). */
  text(id: string): Promise<string | undefined> {
    return readFile(this.file(id, '.json'), 'utf8').catch(() => undefined);
  }

  async saveText(id: string, text: string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeFileAtomic(this.file(id, '.json'), text);
  }

  async saveDocument(doc: AtlasDocument): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeFileAtomic(this.file(doc.id, '.doc.json'), JSON.stringify(doc));
  }

  async archive(id: string, ref: string, text: string): Promise<void> {
    const dir = path.join(this.dir, id, 'sources');
    await mkdir(dir, { recursive: true });
    await writeFileAtomic(path.join(dir, `${ref}.txt`), text);
  }

  async source(id: string, ref: string): Promise<string | undefined> {
    if (!/^e\d{1,6}$/.test(ref)) return undefined;
    return readFile(path.join(this.file(id, ''), 'sources', `${ref}.txt`), 'utf8').catch(() => undefined);
  }

  async remove(id: string): Promise<void> {
    this.parsed.delete(id);
    await rm(this.file(id, '.json'), { force: true });
    await rm(this.file(id, '.doc.json'), { force: true });
    await rm(this.file(id, ''), { recursive: true, force: true });
  }
}
