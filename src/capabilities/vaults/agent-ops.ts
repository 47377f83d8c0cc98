/**
 * What an agent may do in its vault (seed 001 §4.5): search, read, links, and exactly two writes —
 * `propose` (a new note staged in the inbox, after a duplicate check over every name and alias) and
 * `append_log` (one dated line under the note's Log heading). Nothing above the Log changes,
 * immutable types refuse, and `agentForbidden` paths can be neither read nor written nor found.
 */
import { badRequest, notFound } from '../../kernel/errors.js';
import { formatFrontmatter } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import { aliasesOf } from './parse.js';
import { forbiddenMatcher, typeOf } from './schema.js';
import type { OpenVault, VaultsCore } from './service.js';
import { checkFields, fileNameOf, frontmatterOf, type NotesApi } from './notes.js';

export function agentOps(core: VaultsCore, notes: NotesApi) {
  const forbidden = (v: OpenVault) => forbiddenMatcher(v.schema);

  /** The note an agent names (name, alias or vault-relative path), never a forbidden one. */
  function target(v: OpenVault, note: string): string {
    const rel = core.relOf(v, note);
    const hidden = forbidden(v);
    let found = v.index.has(rel) ? rel : v.index.has(`${rel}.md`) ? `${rel}.md` : undefined;
    if (!found) {
      const r = v.index.resolve(note);
      if (r.status === 'ambiguous') {
        const visible = r.candidates.filter((c) => !hidden(c));
        if (visible.length === 1) found = visible[0];
        else throw badRequest(`"${note}" names several notes: ${visible.join(', ')}; give the vault-relative path`);
      } else if (r.status === 'resolved') found = r.path;
    }
    if (!found || hidden(found)) throw notFound(`no note "${note}" in vault "${v.name}"; search for it first (command "search")`);
    return found;
  }

  async function search(vault: string, query: string, limit: number = LIMITS.vaultLimitDefault): Promise<string> {
    const v = await core.get(vault);
    if (!query.trim()) throw badRequest('vault search needs "query", the words to look for');
    const hidden = forbidden(v);
    const hits = v.index.query(query, limit, (rel) => !hidden(rel));
    if (!hits.length) return `No note in vault "${vault}" matches "${query}".`;
    return hits.map((h) => `- ${h.path} (${h.type}${h.matched.includes('name') ? ', name' : ''}${h.matched.includes('alias') ? ', alias' : ''}): ${h.snippet}`).join('\n');
  }

  async function read(vault: string, note: string): Promise<string> {
    const v = await core.get(vault);
    const rel = target(v, note);
    const meta = v.index.meta(rel)!;
    return `# ${rel} (type ${meta.type}${meta.inbox ? ', in the inbox' : ''})\n\n${await v.index.readText(rel)}`;
  }

  async function links(vault: string, note: string): Promise<string> {
    const v = await core.get(vault);
    const rel = target(v, note);
    const hidden = forbidden(v);
    const meta = v.index.meta(rel)!;
    const out = meta.links
      .filter((l) => l.resolution.status !== 'resolved' || !hidden(l.resolution.path))
      .map((l) => {
        const r = l.resolution;
        const where = r.status === 'resolved' ? r.path : r.status === 'ambiguous' ? `ambiguous: ${r.candidates.filter((c) => !hidden(c)).join(' or ')}` : 'unresolved';
        return `- [[${l.target}${l.heading ? '#' + l.heading : ''}]] -> ${where}`;
      });
    const back = meta.backlinks.filter((b) => !hidden(b));
    return [
      `Links of ${rel}:`,
      `Outbound (${out.length}):`,
      ...(out.length ? out : ['(none)']),
      `Backlinks (${back.length}):`,
      ...(back.length ? back.map((b) => `- ${b}`) : ['(none)']),
      `Unresolved: ${meta.unresolved.length ? meta.unresolved.join(', ') : '(none)'}`,
    ].join('\n');
  }

  /** Stages a new note in the inbox, or answers with the note that already has that name or alias. */
  async function propose(vault: string, input: { name: string; type?: string; content: string }, agent: string) {
    const v = await core.get(vault);
    const type = input.type ?? v.schema.defaultType;
    if (!v.schema.types[type]) throw badRequest(`type "${type}" is not in ${vault}/vault.json; the types are ${Object.keys(v.schema.types).join(', ')}`);
    const file = fileNameOf(input.name);
    const { data, body } = frontmatterOf(input.content);
    const names = [file.slice(0, -3), ...aliasesOf(data)];
    return core.serial(vault, async () => {
      const rel = `${v.schema.inbox}/${file}`;
      await v.index.refresh(rel);
      for (const n of names) {
        const same = v.index.named(n).filter((r) => !forbidden(v)(r));
        if (same.length) {
          const existing = same[0];
          return { duplicate: true as const, name: n, existing, content: await v.index.readText(existing) };
        }
      }
      const content = formatFrontmatter({ ...data, type, proposedBy: agent, proposedAt: new Date().toISOString() }, body);
      checkFields(v, type, content);
      await core.files.writeText(core.virtual(v, rel), content);
      await notes.written(v, [rel], `propose ${rel} (${agent})`);
      return { duplicate: false as const, path: rel };
    });
  }

  /** One dated line at the end of the note's Log section (the section is added at the end when missing). */
  async function appendLog(vault: string, note: string, entry: string, agent: string) {
    const v = await core.get(vault);
    const rel = target(v, note);
    const line = entry.replace(/\s*\n\s*/g, ' ').trim();
    if (!line) throw badRequest('append_log needs "entry", the line to add');
    if (line.length > LIMITS.vaultLogEntryChars) throw badRequest(`the entry is ${line.length} characters; a Log line holds at most ${LIMITS.vaultLogEntryChars}, so say it shorter or propose a note`);
    return core.serial(vault, async () => {
      const content = await v.index.readText(rel);
      const type = typeOf(v.schema, rel, frontmatterOf(content).data);
      if (v.schema.types[type]?.immutable) throw badRequest(`note ${rel} is of type "${type}", which is immutable: it cannot be changed, not even its Log; propose a new note instead`);
      const stamp = new Date().toISOString().slice(0, 16).replace('T', ' ');
      const logLine = `- ${stamp} ${line} (${agent})`;
      const next = insertLogLine(content, v.schema.logHeading, logLine);
      await core.files.writeText(core.virtual(v, rel), next);
      await notes.written(v, [rel], `log ${rel} (${agent})`);
      return { path: rel, line: logLine };
    });
  }

  return { search, read, links, propose, appendLog };
}

/**
 * The text with `line` added as the last line of the `heading` section (any level, case-blind);
 * everything before the insertion point is kept byte for byte.
 */
export function insertLogLine(content: string, heading: string, line: string): string {
  const lines = content.split('\n');
  const want = heading.trim().toLowerCase();
  let fence = false;
  let start = -1;
  let level = 0;
  for (let i = 0; i < lines.length; i++) {
    if (/^\s{0,3}(```|~~~)/.test(lines[i])) fence = !fence;
    if (fence) continue;
    const h = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(lines[i]);
    if (h && h[2].toLowerCase() === want) {
      start = i;
      level = h[1].length;
    }
  }
  if (start === -1) {
    const sep = content === '' || content.endsWith('\n\n') ? '' : content.endsWith('\n') ? '\n' : '\n\n';
    return `${content}${sep}## ${heading}\n\n${line}\n`;
  }
  // The section ends at the next heading of the same or a higher level.
  let end = lines.length;
  fence = false;
  for (let i = start + 1; i < lines.length; i++) {
    if (/^\s{0,3}(```|~~~)/.test(lines[i])) fence = !fence;
    if (fence) continue;
    const h = /^(#{1,6})\s/.exec(lines[i]);
    if (h && h[1].length <= level) {
      end = i;
      break;
    }
  }
  let at = end;
  while (at > start + 1 && lines[at - 1].trim() === '') at--;
  const before = lines.slice(0, at);
  const after = lines.slice(at);
  if (at === start + 1) before.push('');
  if (end < lines.length && after.length && after[0].trim() !== '') after.unshift('');
  return [...before, line, ...after].join('\n') + (at === lines.length && !content.endsWith('\n') ? '\n' : '');
}
