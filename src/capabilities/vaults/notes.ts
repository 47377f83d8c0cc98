/**
 * What a person does to notes through HTTP: read, edit (never create), create filed into the type's
 * folder, search, refile (the old name stays an alias), and triage of the inbox. Every write goes
 * through the files capability (atomic, fenced, not echoed by the watcher), re-indexes the note at
 * once, and in a git vault becomes a commit.
 */
import path from 'node:path';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { formatFrontmatter, parseFrontmatter } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import { noteName } from './index.js';
import { aliasesOf } from './parse.js';
import { fieldProblems, typeOf } from './schema.js';
import type { OpenVault, VaultsCore } from './service.js';

const BAD_NAME = /[\\/\u0000-\u001f:*?"<>|#^[\]]/;

/** A note's file name from a person's or a model's name: `.md` added, path characters refused. */
export function fileNameOf(name: string): string {
  const n = name.trim().replace(/\.md$/i, '');
  if (!n || n.startsWith('.') || BAD_NAME.test(n) || n.length > 200) {
    throw badRequest(`note name "${name}" cannot be a file name: use at most 200 characters, not starting with ".", and none of / \\ : * ? " < > | # ^ [ ]`);
  }
  return `${n}.md`;
}

export function frontmatterOf(content: string): { data: Record<string, unknown>; body: string } {
  try {
    return parseFrontmatter(content);
  } catch (err) {
    throw badRequest(`the note's frontmatter is not valid YAML (${(err as Error).message.split('\n')[0]}); fix it and send it again`);
  }
}

/** Content whose frontmatter names `type` when its folder would not say so already. */
export function withType(v: OpenVault, rel: string, type: string, content: string): string {
  const { data, body } = frontmatterOf(content);
  if (typeOf(v.schema, rel, data) === type) return content;
  return formatFrontmatter({ ...data, type }, body);
}

export function checkFields(v: OpenVault, type: string, content: string): void {
  const problems = fieldProblems(v.schema, type, frontmatterOf(content).data);
  if (problems.length) throw badRequest(`the note does not fit type "${type}": ${problems.join('; ')}`);
}

export function notesApi(core: VaultsCore) {
  async function mustExist(v: OpenVault, rel: string): Promise<void> {
    if (v.index.has(rel)) return;
    // A note written a moment ago by hand may not be indexed yet.
    await v.index.refresh(rel);
    if (!v.index.has(rel)) throw notFound(`no note "${core.virtual(v, rel)}" in vault "${v.name}"; GET /api/vaults/${v.name}/index lists the notes`);
  }

  async function readNote(v: OpenVault, rel: string): Promise<string> {
    await mustExist(v, rel);
    return v.index.readText(rel);
  }

  async function written(v: OpenVault, rels: string[], message: string) {
    for (const rel of rels) await v.index.refresh(rel);
    await core.commitPaths(v, rels, message);
  }

  async function get(name: string, p: string) {
    const v = await core.get(name);
    const rel = core.relOf(v, p);
    const content = await readNote(v, rel);
    return { content, note: core.virtual(v, rel), meta: core.publicMeta(v, v.index.meta(rel)!) };
  }

  async function put(name: string, p: string, content: string) {
    const v = await core.get(name);
    const rel = core.relOf(v, p);
    return core.serial(name, async () => {
      await mustExist(v, rel); // 404 rather than create
      await core.files.writeText(core.virtual(v, rel), content);
      await written(v, [rel], `edit ${rel}`);
      return { ok: true, note: core.virtual(v, rel), meta: core.publicMeta(v, v.index.meta(rel)!) };
    });
  }

  async function create(name: string, body: { name: string; type: string; content: string }) {
    const v = await core.get(name);
    const spec = v.schema.types[body.type];
    if (!spec) throw badRequest(`type "${body.type}" is not in ${name}/vault.json; the types are ${Object.keys(v.schema.types).join(', ')}`);
    const rel = spec.folder ? `${spec.folder}/${fileNameOf(body.name)}` : fileNameOf(body.name);
    const content = withType(v, rel, body.type, body.content);
    checkFields(v, body.type, content);
    return core.serial(name, async () => {
      await v.index.refresh(rel);
      if (v.index.has(rel)) throw conflict(`note "${core.virtual(v, rel)}" already exists; edit it with PUT /api/vaults/${name}/note?path=${rel} or choose another name`);
      await core.files.writeText(core.virtual(v, rel), content);
      await written(v, [rel], `create ${rel}`);
      return { ok: true, note: core.virtual(v, rel), meta: core.publicMeta(v, v.index.meta(rel)!) };
    });
  }

  async function search(name: string, q: string, limit: number = LIMITS.vaultSearchDefault) {
    const v = await core.get(name);
    if (!q.trim()) throw badRequest('send ?q= with the words to search for');
    const results = v.index.query(q, limit).map((h) => ({ ...h, path: core.virtual(v, h.path) }));
    return { results };
  }

  async function refile(name: string, body: { path: string; type?: string; name?: string }) {
    const v = await core.get(name);
    const rel = core.relOf(v, body.path);
    if (body.type === undefined && body.name === undefined) throw badRequest('send "type", "name" or both to refile a note');
    return core.serial(name, async () => {
      const content = await readNote(v, rel);
      const { data, body: text } = frontmatterOf(content);
      const oldType = typeOf(v.schema, rel, data);
      const type = body.type ?? oldType;
      const spec = v.schema.types[type];
      if (!spec) throw badRequest(`type "${type}" is not in ${name}/vault.json; the types are ${Object.keys(v.schema.types).join(', ')}`);
      const file = body.name === undefined ? path.posix.basename(rel) : fileNameOf(body.name);
      const folder = body.type === undefined ? path.posix.dirname(rel).replace(/^\.$/, '') : spec.folder;
      const to = folder ? `${folder}/${file}` : file;
      const next = { ...data };
      const oldName = noteName(rel);
      // The old name becomes an alias, so every [[old name]] in the vault still resolves.
      if (noteName(to) !== oldName) {
        const aliases = aliasesOf(data);
        if (!aliases.some((a) => a.toLowerCase() === oldName.toLowerCase())) next.aliases = [...aliases, oldName];
        delete next.alias;
      }
      if (typeOf(v.schema, to, next) !== type) next.type = type;
      else if (body.type !== undefined && next.type !== undefined) next.type = type;
      const newContent = formatFrontmatter(next, text);
      checkFields(v, type, newContent);
      if (to !== rel) {
        await v.index.refresh(to);
        if (v.index.has(to)) throw conflict(`note "${core.virtual(v, to)}" already exists; choose another name`);
        await core.files.rename(core.virtual(v, rel), core.virtual(v, to));
      }
      await core.files.writeText(core.virtual(v, to), newContent);
      await written(v, to === rel ? [rel] : [rel, to], `refile ${rel} -> ${to}`);
      return { ok: true, from: core.virtual(v, rel), note: core.virtual(v, to), meta: core.publicMeta(v, v.index.meta(to)!) };
    });
  }

  /** An inbox note named by its path, its vault path or its file name inside the inbox. */
  function inboxRel(v: OpenVault, file: string): string {
    let rel = core.relOf(v, file);
    if (!rel.startsWith(v.schema.inbox + '/')) rel = `${v.schema.inbox}/${rel.endsWith('.md') ? rel : rel + '.md'}`;
    if (!v.index.has(rel)) throw notFound(`no inbox note "${file}" in vault "${v.name}"; the inbox is ${v.name}/${v.schema.inbox}/`);
    return rel;
  }

  async function accept(name: string, body: { file: string; folder?: string }) {
    const v = await core.get(name);
    return core.serial(name, async () => {
      const rel = inboxRel(v, body.file);
      const content = await readNote(v, rel);
      const { data } = frontmatterOf(content);
      const type = typeof data.type === 'string' && v.schema.types[data.type] ? data.type : v.schema.defaultType;
      const folder = body.folder !== undefined ? core.relOf(v, body.folder).replace(/\/+$/, '') : v.schema.types[type].folder;
      if (folder === v.schema.inbox || folder.startsWith(v.schema.inbox + '/')) throw badRequest(`"folder" must be outside the inbox (${v.schema.inbox}/)`);
      const to = folder ? `${folder}/${path.posix.basename(rel)}` : path.posix.basename(rel);
      await v.index.refresh(to);
      if (v.index.has(to)) throw conflict(`note "${core.virtual(v, to)}" already exists; refile the inbox note under another name first, or reject it`);
      await core.files.rename(core.virtual(v, rel), core.virtual(v, to));
      await written(v, [rel, to], `accept ${rel} -> ${to}`);
      return { ok: true, from: core.virtual(v, rel), note: core.virtual(v, to), meta: core.publicMeta(v, v.index.meta(to)!) };
    });
  }

  async function reject(name: string, body: { file: string }) {
    const v = await core.get(name);
    return core.serial(name, async () => {
      const rel = inboxRel(v, body.file);
      await core.files.deleteEntry(core.virtual(v, rel), { recursive: false });
      await written(v, [rel], `reject ${rel}`);
      return { ok: true, deleted: core.virtual(v, rel) };
    });
  }

  async function index(name: string) {
    const v = await core.get(name);
    return { vault: name, schema: v.schema, notes: v.index.all().map((m) => core.publicMeta(v, m)), stats: v.index.stats };
  }

  return { get, put, create, search, refile, accept, reject, index, readNote, written };
}

export type NotesApi = ReturnType<typeof notesApi>;
