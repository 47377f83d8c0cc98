/**
 * The nine file tools (seed 001 §4.1): thin adapters over the files service. Descriptions are
 * written for a model; paging headers come first because a downstream clip removes the tail.
 */
import type { FencedReader } from '../../kernel/fenced-read.js';
import { hiddenReason, type HiddenArea } from '../../kernel/hidden.js';
import { LIMITS } from '../../kernel/limits.js';
import { defineTool, type AnyTool, type PermissionClass, type PermissionRequest, type ToolContext } from '../../tools/types.js';
import type { FilesService } from './service.js';

const PATHS =
  'Paths are virtual: relative to the workspace (e.g. "src/app.ts"), or "<mount>/<path>" for a mounted folder. Absolute paths, ".." and links leading outside are refused.';

export interface FileToolDeps {
  embeddingsConfigured: () => boolean;
  /** The semantic index's answer to a search_code query (capabilities/codeindex). */
  searchCode?: (query: string) => Promise<string>;
  /** Judges what a model may see (vaults' agentForbidden, on every name a path resolves to). */
  reader: FencedReader;
  /** Told of every file a model wrote (by real path): what it saved may be something that runs later (a skill). */
  afterWrite?: (real: string, ctx: ToolContext) => Promise<void>;
  /** What a write of `written` to `real` would grant later (a skill declaring tools): asked like a protected path. */
  grants?: (real: string, written: string) => Promise<{ key: string; why: string } | undefined>;
}

export function fileTools(files: FilesService, deps: FileToolDeps): AnyTool[] {
  const wrote = async (virtual: string, ctx: ToolContext) => {
    if (!deps.afterWrite) return;
    const r = await files.resolve(virtual).catch(() => undefined);
    if (r) await deps.afterWrite(r.target, ctx);
  };
  const areas = (): Promise<readonly HiddenArea[]> => deps.reader.areas();
  /** Why `virtual` is hidden from models (a vault's agentForbidden), judged by the fenced reader on every name it resolves to. */
  const hiddenWhy = async (virtual: string | undefined): Promise<string | undefined> => {
    if (virtual === undefined) return undefined;
    const judged = await deps.reader.allowed(virtual);
    // A path the fence refuses for another reason is refused again, with its sentence, when the tool runs.
    return judged.ok || !judged.hidden ? undefined : judged.reason;
  };
  /** A tool's permission, refused outright (no rule lifts it) when its path is hidden from models. */
  const fenced =
    <A extends { path?: string }>(tool: string, cls: PermissionClass, then?: (args: A) => Promise<PermissionRequest>) =>
    async (args: A): Promise<PermissionRequest> => {
      const why = await hiddenWhy(args.path);
      if (why) return { class: cls, key: tool, hardDeny: why };
      return then ? then(args) : { class: cls, key: tool };
    };
  /** Search rows without what is hidden from models. */
  const visibleRows = async <R>(rows: R[], pathOf: (row: R) => string): Promise<R[]> => {
    const all = await areas();
    return all.length ? rows.filter((row) => !hiddenReason(all, files.realOf(pathOf(row)), pathOf(row))) : rows;
  };
  /**
   * A changing tool's permission: its own class, unless the path is protected (src/capabilities/files/protected.ts);
   * then a prompt under `protected_path(<name>)` showing what would be written.
   */
  const guarded =
    <A extends { path: string }>(tool: string, cls: PermissionClass, shown: (args: A) => string) =>
    async (args: A): Promise<PermissionRequest> => {
      // A path the fence refuses is refused again, with its sentence, when the tool runs.
      const hit = (await files.protectedWrite(args.path).catch(() => undefined)) ?? (await schemaHit(args.path)) ?? (await grantHit(args.path, shown(args)));
      if (!hit) return { class: cls, key: tool };
      const what = shown(args);
      const body = what.length > LIMITS.protectedPromptChars ? `${what.slice(0, LIMITS.protectedPromptChars)}… (${what.length} characters in all)` : what;
      return {
        class: 'code',
        key: hit.key,
        keys: [tool, hit.key],
        display: body ? `${tool} ${args.path}\n${body}` : `${tool} ${args.path}`,
        protectedPath: `"${args.path}" is a protected path: ${hit.why}`,
      };
    };
  /** A vault's schema holds what it hides from models: only a person changes it (a protected path). */
  const schemaHit = async (virtual: string) => {
    const all = await areas();
    const r = all.some((a) => a.schemaFile) ? await files.resolve(virtual).catch(() => undefined) : undefined;
    const area = r && all.find((a) => a.schemaFile && (a.schemaFile === r.target || a.schemaFile === r.entry));
    return area ? { key: 'protected_path(vault.json)', why: `the schema of ${area.owner} decides what models may see there` } : undefined;
  };
  const grantHit = async (virtual: string, written: string) => {
    if (!deps.grants) return undefined;
    const r = await files.resolve(virtual).catch(() => undefined);
    return r ? deps.grants(r.target, written) : undefined;
  };
  const edits = (list: Array<{ old_string: string; new_string: string }>) => list.map((e) => `- ${e.old_string}\n+ ${e.new_string}`).join('\n');

  const readFile = defineTool<{ path: string; offset?: number; limit?: number }>({
    name: 'read_file',
    group: 'files',
    readOnly: true,
    description: `Read a text file. Use it before editing a file, to see its exact current text. Give offset (1-based first line) and limit (line count) to read part of a long file; a ranged read starts with a header "[lines a-b of N; more remain, call again with offset=M]". A file longer than ${LIMITS.readFileChars} characters is answered in whole lines up to that size with the same header, so page through it with offset. Binary files and files over ${LIMITS.fileTextBytes / 1024 / 1024} MB are refused. ${PATHS}`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'virtual path of the file' },
        offset: { type: 'integer', minimum: 1, description: '1-based line to start at' },
        limit: { type: 'integer', minimum: 1, description: 'number of lines to read' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    permission: fenced('read_file', 'other'),
    async run(args, ctx) {
      const { path, content } = await files.readText(args.path, ctx.emit);
      const ranged = args.offset !== undefined || args.limit !== undefined;
      if (content === '') return `${path} is empty (0 lines)`; // an empty answer reads as a failure to a model
      if (!ranged && content.length <= LIMITS.readFileChars) return content;
      // A ranged read, or a whole file too long for one answer: whole lines up to the budget, header first.
      const lines = content.split('\n');
      if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
      const total = lines.length;
      const start = args.offset ?? 1;
      if (start > total) return { text: `${path} has ${total} lines; offset ${start} is past the end. Call again with offset between 1 and ${total}.`, isError: true };
      const wanted = Math.min(total, start - 1 + (args.limit ?? total));
      let end = start;
      for (let size = lines[start - 1].length; end < wanted && size + lines[end].length + 1 <= LIMITS.readFileChars; end++) size += lines[end].length + 1;
      const more = end < total ? `; more remain, call again with offset=${end + 1}` : '';
      return `[lines ${start}-${end} of ${total}${more}]\n${lines.slice(start - 1, end).join('\n')}`;
    },
  });

  const writeFile = defineTool<{ path: string; content: string }>({
    name: 'write_file',
    group: 'files',
    description: `Create or overwrite a whole file with the given content (parent folders are created). Prefer edit_file or multi_edit to change part of an existing file. The write is atomic. ${PATHS}`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'virtual path of the file' },
        content: { type: 'string', description: 'the complete new file text' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    permission: fenced('write_file', 'other', guarded<{ path: string; content: string }>('write_file', 'other', (a) => a.content)),
    async run(args, ctx) {
      const r = await files.writeText(args.path, args.content, ctx.emit);
      await wrote(r.path, ctx);
      return `wrote ${r.path} (${r.bytes} bytes)`;
    },
  });

  const editSchema = {
    type: 'object',
    properties: {
      old_string: { type: 'string', description: 'exact text to replace; must occur exactly once' },
      new_string: { type: 'string', description: 'replacement text, written literally' },
    },
    required: ['old_string', 'new_string'],
    additionalProperties: false,
  };

  const editFile = defineTool<{ path: string; old_string: string; new_string: string }>({
    name: 'edit_file',
    group: 'files',
    description: `Replace one exact piece of text in a file. old_string must occur exactly once (copy it from read_file, whitespace included); if it occurs zero or several times nothing is written and the error names the count, so add surrounding lines to make it unique. The replacement is literal ($&, $1 and $$ are written as is). For several changes to one file use multi_edit. ${PATHS}`,
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'virtual path of the file' }, ...editSchema.properties },
      required: ['path', 'old_string', 'new_string'],
      additionalProperties: false,
    },
    permission: fenced('edit_file', 'other', guarded<{ path: string; old_string: string; new_string: string }>('edit_file', 'other', (a) => edits([a]))),
    async run(args, ctx) {
      const r = await files.edit(args.path, [{ old_string: args.old_string, new_string: args.new_string }], ctx.emit);
      await wrote(r.path, ctx);
      return `edited ${r.path}`;
    },
  });

  const multiEdit = defineTool<{ path: string; edits: Array<{ old_string: string; new_string: string }> }>({
    name: 'multi_edit',
    group: 'files',
    description: `Apply several exact replacements to one file, in order, atomically: each edit's old_string must occur exactly once in the text as left by the previous edits; if any edit fails nothing is written and the failing edit is named. Replacements are literal. ${PATHS}`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'virtual path of the file' },
        edits: { type: 'array', minItems: 1, items: editSchema, description: 'the edits, applied in order' },
      },
      required: ['path', 'edits'],
      additionalProperties: false,
    },
    permission: fenced('multi_edit', 'other', guarded<{ path: string; edits: Array<{ old_string: string; new_string: string }> }>('multi_edit', 'other', (a) => edits(a.edits))),
    async run(args, ctx) {
      const r = await files.edit(args.path, args.edits, ctx.emit);
      await wrote(r.path, ctx);
      return `applied ${r.edits} edits to ${r.path}`;
    },
  });

  const listDir = defineTool<{ path: string }>({
    name: 'list_dir',
    group: 'files',
    readOnly: true,
    description: `List one folder: one name per line, folders end with "/". Use "." for the workspace root (mounted folders appear there too). At most ${LIMITS.listDirEntries} entries; the rest are counted. To find files by name across folders use glob. ${PATHS}`,
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'virtual folder path; "." for the workspace root' } },
      required: ['path'],
      additionalProperties: false,
    },
    permission: fenced('list_dir', 'other'),
    async run(args) {
      const listed = await files.listDir(args.path);
      const path = listed.path;
      const entries = await visibleRows(listed.entries, (e) => (path ? `${path}/${e.name}` : e.name));
      if (!entries.length) return `${path || '.'} is an empty folder`;
      const shown = entries.slice(0, LIMITS.listDirEntries).map((e) => (e.dir ? `${e.name}/` : e.name));
      if (entries.length > LIMITS.listDirEntries) shown.push(`... and ${entries.length - LIMITS.listDirEntries} more entries (use glob to narrow down)`);
      return shown.join('\n');
    },
  });

  const grep = defineTool<{
    pattern: string;
    path?: string;
    include?: string;
    exclude?: string;
    ignore_case?: boolean;
    literal?: boolean;
    offset?: number;
    head_limit?: number;
  }>({
    name: 'grep',
    group: 'files',
    readOnly: true,
    description: `Search file contents for a regular expression (or literal text with literal=true) across the workspace and mounts, or under path. Respects .gitignore/.ignore and skips hidden and binary files. Returns rows "path:line: text", sorted by path, lines clamped to ${LIMITS.grepLineChars} characters. At most ${LIMITS.grepMatches} rows and ${LIMITS.grepChars} characters per call; the first line says which matches you got and, when more remain, the offset to call again with (offset up to ${LIMITS.grepMaxOffset}). include/exclude are file globs such as "*.ts", "src/**" or "*.ts,*.md". Each root is searched for at most ${LIMITS.grepRootTimeoutMs / 1000} s; a search cut short says so in a note. To find files by name use glob.`,
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1, description: 'regular expression (or literal text with literal=true)' },
        path: { type: 'string', description: 'file or folder to search; default every root' },
        include: { type: 'string', description: 'only files matching this glob, e.g. "*.ts"' },
        exclude: { type: 'string', description: 'skip files matching this glob' },
        ignore_case: { type: 'boolean', description: 'case-insensitive match' },
        literal: { type: 'boolean', description: 'treat pattern as plain text' },
        offset: { type: 'integer', minimum: 0, maximum: LIMITS.grepMaxOffset, description: 'rows to skip (paging)' },
        head_limit: { type: 'integer', minimum: 1, description: `rows to return (at most ${LIMITS.grepMatches})` },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    permission: fenced('grep', 'other'),
    async run(args, ctx) {
      const offset = args.offset ?? 0;
      const page = Math.min(args.head_limit ?? LIMITS.grepMatches, LIMITS.grepMatches);
      const out = await files.grep({
        pattern: args.pattern,
        path: args.path,
        include: args.include,
        exclude: args.exclude,
        ignoreCase: args.ignore_case,
        literal: args.literal,
        maxRows: offset + page + 1,
        signal: ctx.signal,
      });
      out.rows = await visibleRows(out.rows, (r) => r.path);
      const rows = out.rows
        .slice(offset, offset + page)
        .map((r) => `${r.path}:${r.line}: ${r.text.length > LIMITS.grepLineChars ? r.text.slice(0, LIMITS.grepLineChars) + '…' : r.text}`);
      const more = out.rows.length > offset + page || !out.complete;
      return pageText(rows, offset, more, LIMITS.grepChars, out.warnings, `no matches for ${JSON.stringify(args.pattern)}${args.path ? ` under ${args.path}` : ''}`);
    },
  });

  const glob = defineTool<{ pattern: string; path?: string; offset?: number }>({
    name: 'glob',
    group: 'files',
    readOnly: true,
    description: `Find files by name pattern ("**/*.ts", "src/*.md", "?" for one character) across the workspace and mounts, or under path. Returns sorted virtual paths, at most ${LIMITS.globPaths} per call; the first line says which you got and the offset to call again with when more remain (offset up to ${LIMITS.globMaxOffset}). Skips node_modules, dist, build, .next, coverage and dot-folders unless the pattern names them. To search file contents use grep.`,
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1, description: 'glob pattern relative to path (or to each root)' },
        path: { type: 'string', description: 'folder to search under; default every root' },
        offset: { type: 'integer', minimum: 0, maximum: LIMITS.globMaxOffset, description: 'paths to skip (paging)' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    permission: fenced('glob', 'other'),
    async run(args, ctx) {
      const offset = args.offset ?? 0;
      const out = await files.glob({ pattern: args.pattern, path: args.path, maxRows: offset + LIMITS.globPaths + 1, signal: ctx.signal });
      out.rows = await visibleRows(out.rows, (p) => p);
      const rows = out.rows.slice(offset, offset + LIMITS.globPaths);
      const more = out.rows.length > offset + LIMITS.globPaths;
      return pageText(rows, offset, more, LIMITS.globChars, [], `no files match ${JSON.stringify(args.pattern)}${args.path ? ` under ${args.path}` : ''}`);
    },
  });

  const deleteFile = defineTool<{ path: string }>({
    name: 'delete_file',
    group: 'files',
    description: `Delete one file or one empty folder. A folder with contents, the workspace root and a mount root are refused. ${PATHS}`,
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'virtual path of the file or empty folder' } },
      required: ['path'],
      additionalProperties: false,
    },
    permission: fenced('delete_file', 'delete', guarded<{ path: string }>('delete_file', 'delete', () => '')),
    async run(args, ctx) {
      const r = await files.deleteEntry(args.path, { recursive: false }, ctx.emit);
      return `deleted ${r.path}`;
    },
  });

  const searchCode = defineTool<{ query: string }>({
    name: 'search_code',
    group: 'files',
    readOnly: true,
    description:
      'Semantic code search: finds code by meaning ("where do we retry failed uploads"), answering "path:line (score)" with the chunk. Needs an embeddings endpoint in engine.config.json; without one it says so, and grep is the way to search.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', minLength: 1, description: 'what the code does, in words' } },
      required: ['query'],
      additionalProperties: false,
    },
    permission: 'other',
    async run(args) {
      if (!deps.embeddingsConfigured() || !deps.searchCode) {
        return { text: 'search_code is unavailable: no embeddings endpoint is configured (set "embeddings" in engine.config.json). Use grep to search file contents instead.', isError: true };
      }
      return deps.searchCode(args.query);
    },
  });

  return [readFile, writeFile, editFile, multiEdit, listDir, grep, glob, deleteFile, searchCode];
}

/** The paging header first ('matches a-b; more remain, call again with offset=N'), then rows up to `maxChars`. */
function pageText(rows: string[], offset: number, more: boolean, maxChars: number, warnings: string[], none: string): string {
  if (!rows.length) {
    const base = offset > 0 ? `no matches at offset ${offset}; there are fewer results than that` : none;
    return [base, ...warnings.map((w) => `note: ${w}`)].join('\n');
  }
  const kept: string[] = [];
  let size = 0;
  for (const row of rows) {
    if (kept.length && size + row.length + 1 > maxChars - 200) {
      more = true;
      break;
    }
    kept.push(row);
    size += row.length + 1;
  }
  const a = offset + 1;
  const b = offset + kept.length;
  const header = more ? `matches ${a}-${b}; more remain, call again with offset=${b}` : `matches ${a}-${b} of ${b}`;
  return [header, ...warnings.map((w) => `note: ${w}`), ...kept].join('\n');
}
