/**
 * The `memory` tool (seed 001 §4.4): the Anthropic memory-tool command set over two virtual folders,
 * `/memories/memories/` (the calling agent's own scope) and `/memories/shared/`. `.md` files only,
 * one level deep, and no path may leave those folders.
 */
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { defineTool, type ToolContext } from '../../tools/types.js';
import { checkFileName, type MemoryService, SHARED_SCOPE } from './service.js';

const ROOT = '/memories';
const OWN = 'memories';

type Target = { kind: 'root' } | { kind: 'dir'; scope: string; folder: string } | { kind: 'file'; scope: string; folder: string; name: string };

/** Maps a virtual path to a scope and file; refuses anything outside the two folders. */
export function resolveMemoryPath(raw: unknown, ctx: Pick<ToolContext, 'agent'>, want?: 'file'): Target {
  if (typeof raw !== 'string' || !raw.trim()) throw badRequest('memory: path is required, e.g. /memories/memories/notes.md');
  const p = raw.trim();
  if (p.includes('\\') || p.includes('\0') || p.includes('%')) throw badRequest(`memory: path "${p}" holds a character memory paths never use; write /memories/memories/<file>.md or /memories/shared/<file>.md`);
  const segs = p.split('/').filter((s) => s !== '');
  if (segs.some((s) => s === '..' || s === '.')) {
    throw badRequest(`memory: path "${p}" tries to leave the memory folders; only /memories/memories/<file>.md and /memories/shared/<file>.md exist`);
  }
  if (segs[0] !== 'memories' || !p.startsWith('/')) throw badRequest(`memory: path "${p}" is outside /memories; use /memories/memories/<file>.md (yours) or /memories/shared/<file>.md (shared)`);
  if (segs.length === 1) {
    if (want === 'file') throw badRequest('memory: /memories is a folder; name a file such as /memories/memories/notes.md');
    return { kind: 'root' };
  }
  const folder = segs[1];
  if (folder !== OWN && folder !== SHARED_SCOPE) {
    throw badRequest(`memory: "/memories/${folder}" does not exist; the folders are /memories/memories (yours) and /memories/shared`);
  }
  let scope = SHARED_SCOPE;
  if (folder === OWN) {
    if (!ctx.agent) throw badRequest('memory: /memories/memories is the calling agent\'s own folder, and this conversation runs as no agent; use /memories/shared/<file>.md');
    scope = ctx.agent;
  }
  if (segs.length === 2) {
    if (want === 'file') throw badRequest(`memory: /memories/${folder} is a folder; name a file such as /memories/${folder}/notes.md`);
    return { kind: 'dir', scope, folder };
  }
  if (segs.length > 3) throw badRequest(`memory: "${p}" is nested; memory folders hold files directly, e.g. /memories/${folder}/${segs.slice(2).join('-')}`);
  const name = segs[2];
  try {
    checkFileName(name);
  } catch (err) {
    throw badRequest(`memory: ${(err as Error).message}`);
  }
  return { kind: 'file', scope, folder, name };
}

const vpath = (t: { folder: string; name: string }) => `${ROOT}/${t.folder}/${t.name}`;
type FileTarget = Extract<Target, { kind: 'file' }>;

export function memoryTool(memory: MemoryService) {
  return defineTool<{
    command: 'view' | 'create' | 'str_replace' | 'insert' | 'delete' | 'rename';
    path?: string;
    file_text?: string;
    old_str?: string;
    new_str?: string;
    insert_line?: number;
    insert_text?: string;
    old_path?: string;
    new_path?: string;
    view_range?: number[];
  }>({
    name: 'memory',
    group: 'meta',
    description:
      'Persistent markdown notes that outlive this conversation. Your own notes are under /memories/memories/<file>.md; notes shared with every memory-enabled agent are under /memories/shared/<file>.md. ' +
      'Commands: view (a folder lists its files; a file shows numbered lines, view_range [start, end] narrows), create (path, file_text; replaces a file), str_replace (path, old_str occurring exactly once, new_str), ' +
      'insert (path, insert_line: 0 for the top, insert_text), delete (path), rename (old_path, new_path). Only .md files, one level deep.',
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', enum: ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'] },
        path: { type: 'string' },
        file_text: { type: 'string' },
        old_str: { type: 'string' },
        new_str: { type: 'string' },
        insert_line: { type: 'integer', minimum: 0 },
        insert_text: { type: 'string' },
        old_path: { type: 'string' },
        new_path: { type: 'string' },
        view_range: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2 },
      },
      required: ['command'],
    },
    permission: 'other',
    async run(args, ctx) {
      // Sentences in the model's own terms (its virtual paths), not the HTTP routes' scope names.
      const mustExist = async (t: FileTarget) => {
        if (!(await memory.exists(t.scope, t.name))) throw notFound(`memory: ${vpath(t)} does not exist; view /memories/${t.folder} lists the files there`);
      };
      const readNote = async (t: FileTarget) => (await mustExist(t), memory.read(t.scope, t.name));
      const written = (t: { scope: string; folder: string; name: string }, op: string) =>
        ctx.emit('file.written', { path: vpath(t), scope: t.scope, op, agent: ctx.agent, tool: 'memory' });
      switch (args.command) {
        case 'view': {
          const t = resolveMemoryPath(args.path ?? ROOT, ctx);
          if (t.kind === 'root') {
            const lines = [`${ROOT}/`];
            for (const [folder, scope] of [[OWN, ctx.agent], [SHARED_SCOPE, SHARED_SCOPE]] as const) {
              if (!scope) continue;
              lines.push(`  ${folder}/`);
              for (const f of await memory.files(scope)) lines.push(`    ${f.name} (${f.size} bytes)`);
            }
            return lines.join('\n');
          }
          if (t.kind === 'dir') {
            const fs = await memory.files(t.scope);
            return fs.length ? [`${ROOT}/${t.folder}/`, ...fs.map((f) => `  ${f.name} (${f.size} bytes)`)].join('\n') : `${ROOT}/${t.folder}/ is empty`;
          }
          const text = await readNote(t);
          const lines = text.split('\n');
          let [start, end] = args.view_range ?? [1, lines.length];
          if (end === -1) end = lines.length;
          if (start < 1 || end < start) throw badRequest('memory: view_range is [first line, last line], 1-based, with last >= first (-1 means the end)');
          return lines
            .slice(start - 1, end)
            .map((l, i) => `${String(start + i).padStart(6)}\t${l}`)
            .join('\n');
        }
        case 'create': {
          const t = resolveMemoryPath(args.path, ctx, 'file') as FileTarget;
          if (typeof args.file_text !== 'string') throw badRequest('memory create: file_text is required (the whole content of the note)');
          const existed = await memory.exists(t.scope, t.name);
          await memory.write(t.scope, t.name, args.file_text);
          written(t, existed ? 'overwrite' : 'create');
          return `${existed ? 'overwrote' : 'created'} ${vpath(t)}`;
        }
        case 'str_replace': {
          const t = resolveMemoryPath(args.path, ctx, 'file') as FileTarget;
          if (typeof args.old_str !== 'string' || !args.old_str) throw badRequest('memory str_replace: old_str is required and must not be empty');
          const text = await readNote(t);
          const count = text.split(args.old_str).length - 1;
          if (count !== 1) throw badRequest(`memory str_replace: old_str occurs ${count} times in ${vpath(t)}; it must occur exactly once (add surrounding text to make it unique)`);
          const at = text.indexOf(args.old_str);
          await memory.write(t.scope, t.name, text.slice(0, at) + (args.new_str ?? '') + text.slice(at + args.old_str.length));
          written(t, 'edit');
          return `edited ${vpath(t)}`;
        }
        case 'insert': {
          const t = resolveMemoryPath(args.path, ctx, 'file') as FileTarget;
          if (typeof args.insert_text !== 'string') throw badRequest('memory insert: insert_text is required');
          if (typeof args.insert_line !== 'number') throw badRequest('memory insert: insert_line is required (0 inserts at the top, N after line N)');
          const text = await readNote(t);
          const lines = text.split('\n');
          if (args.insert_line > lines.length) throw badRequest(`memory insert: insert_line ${args.insert_line} is past the end; ${vpath(t)} has ${lines.length} lines`);
          const add = args.insert_text.endsWith('\n') ? args.insert_text.slice(0, -1) : args.insert_text;
          lines.splice(args.insert_line, 0, ...add.split('\n'));
          await memory.write(t.scope, t.name, lines.join('\n'));
          written(t, 'insert');
          return `inserted ${add.split('\n').length} line(s) into ${vpath(t)} after line ${args.insert_line}`;
        }
        case 'delete': {
          const t = resolveMemoryPath(args.path, ctx, 'file') as FileTarget;
          await mustExist(t);
          await memory.remove(t.scope, t.name);
          written(t, 'delete');
          return `deleted ${vpath(t)}`;
        }
        case 'rename': {
          const from = resolveMemoryPath(args.old_path, ctx, 'file') as FileTarget;
          const to = resolveMemoryPath(args.new_path, ctx, 'file') as FileTarget;
          await mustExist(from);
          if (await memory.exists(to.scope, to.name)) throw conflict(`memory: ${vpath(to)} already exists; pick another new_path or delete it first`);
          await memory.rename(from.scope, from.name, to.scope, to.name);
          written(from, 'delete');
          written(to, 'create');
          return `renamed ${vpath(from)} to ${vpath(to)}`;
        }
      }
      throw badRequest(`memory: unknown command "${String(args.command)}"`);
    },
  });
}

/** The prompt block a `memory: true` agent gets (and only such an agent). */
export async function memoryPromptBlock(memory: MemoryService, agent: string): Promise<string> {
  const own = await memory.files(agent);
  const shared = await memory.files(SHARED_SCOPE);
  const list = (fs: { name: string }[], folder: string) => (fs.length ? fs.map((f) => `- ${ROOT}/${folder}/${f.name}`).join('\n') : `(no files in ${ROOT}/${folder} yet)`);
  return [
    '# Memory',
    'You have persistent memory through the memory tool. Before starting, view your memory for what earlier conversations learned; as you work, record what will help next time (decisions, preferences, facts about this project), and correct notes that turn out wrong.',
    `Your notes: ${ROOT}/memories/<file>.md. Shared with every memory-enabled agent: ${ROOT}/shared/<file>.md. Markdown files only; keep each note small and topical.`,
    list(own, 'memories'),
    list(shared, 'shared'),
  ].join('\n');
}
