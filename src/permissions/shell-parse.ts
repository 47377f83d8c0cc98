/**
 * Splits a shell command into segments with a real bash parser (web-tree-sitter + tree-sitter-bash,
 * a pinned pair, loaded from the installed packages' wasm: no download). Fails closed: a parse
 * error, an unknown node type, a timeout or an oversized command is reported in `failClosed`, and
 * the segments then come from a small conservative lexer so keys and the denylist still work.
 *
 * A segment is one simple command: the parts of `;`, `&&`, `||`, `|`, `|&`, `&` and newlines,
 * including inside brace groups, subshells, if/for/while/until/case bodies and function bodies.
 * Commands inside `$( )`, backticks and `<( )` become segments too, marked `nested`.
 */
import { createRequire } from 'node:module';
import type { Node, Parser } from 'web-tree-sitter';
import { lazyRequire } from '../kernel/lazy-require.js';
import { LIMITS } from '../kernel/limits.js';
import { ARITHMETIC_NOTE, arithmeticNamesVariable, computedSubscript, decodeAnsiC, expansionRisk, heredocBodyRisks } from './shell-expand.js';
import { lexShell } from './shell-lex.js';

export interface ShellWord {
  /** The word's value with quotes and backslashes removed (when static), else its source text. */
  text: string;
  /** Known before the shell runs: no expansion, substitution or brace expansion. */
  static: boolean;
  /** Written (partly) in quotes. */
  quoted: boolean;
  /** The source text. */
  raw: string;
}

export interface ShellRedirect {
  /** `>`, `>>`, `<`, `&>`, `>|`, `<<`, `<<<` ... */
  op: string;
  target: ShellWord;
}

export interface ShellSegment {
  /** The segment's source text. */
  text: string;
  /** Leading `NAME=value` assignments (and the assignments of export/declare/local). */
  assignments: Array<{ name: string; value: ShellWord | undefined }>;
  /** The command words: program first. Empty for a bare assignment. */
  words: ShellWord[];
  redirects: ShellRedirect[];
  /** Shared by the segments of one pipeline; `pipeIndex` is the position inside it. */
  pipeline?: number;
  pipeIndex?: number;
  /** Inside a command or process substitution. */
  nested?: boolean;
  /** Reads a here-document or here-string on standard input. */
  heredoc?: boolean;
  /** The here-document bodies and here-strings it reads, as written (code when a shell reads them). */
  stdin?: string[];
  /** `declaration` for export/declare/local/readonly/typeset; `test` for [[ ]]. */
  kind: 'command' | 'declaration' | 'assignment' | 'test' | 'unset';
}

export interface FunctionDef {
  name: string;
  /** The programs its body runs, and whether any run in a pipeline or the background. */
  calls: ShellSegment[];
  text: string;
}

export interface ShellParse {
  segments: ShellSegment[];
  functions: FunctionDef[];
  /** Structural reasons that force a prompt: substitutions, and anything that made the parse fail closed. */
  notes: string[];
  /** Set when the bash parse could not be trusted (error, unknown node, timeout, too long, parser unavailable). */
  failClosed?: string;
  /** Which reader produced the segments. */
  source: 'tree-sitter' | 'lexer';
}

// --- the parser ---------------------------------------------------------------------------------

/** web-tree-sitter itself (its glue code, ~1.4 MB resident) loads with the grammar, not at start (bench/memory). */
const treeSitter = lazyRequire<typeof import('web-tree-sitter')>('web-tree-sitter');
let parser: Parser | undefined;
let loading: Promise<Parser | undefined> | undefined;
let loadError: string | undefined;

/** Loads the bash grammar once; later calls return the same parser. Never throws. */
export function ensureShellParser(): Promise<Parser | undefined> {
  loading ??= (async () => {
    try {
      const require = createRequire(import.meta.url);
      const { Language, Parser } = treeSitter();
      await Parser.init();
      const language = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
      const p = new Parser();
      p.setLanguage(language);
      parser = p;
      return p;
    } catch (err) {
      loadError = (err as Error).message;
      return undefined;
    }
  })();
  return loading;
}

/** The parser when it is loaded, for synchronous callers (the denylist). */
export function shellParserReady(): boolean {
  return parser !== undefined;
}

/** Parses `command` into segments, failing closed. */
export async function parseShell(command: string): Promise<ShellParse> {
  await ensureShellParser();
  return parseShellSync(command);
}

/** The segments of `command` (for tests and the shell tool). */
export async function splitShell(command: string): Promise<ShellSegment[]> {
  return (await parseShell(command)).segments;
}

/** Parses with the tree when the parser is loaded, else with the lexer (and says so). */
export function parseShellSync(command: string): ShellParse {
  if (command.length > LIMITS.shellParseMaxChars) {
    return { ...lexShell(command), failClosed: `the command is longer than ${LIMITS.shellParseMaxChars} characters` };
  }
  if (!parser) {
    return { ...lexShell(command), failClosed: `the bash parser is not available${loadError ? ` (${loadError})` : ''}` };
  }
  const deadline = Date.now() + LIMITS.shellParseTimeoutMs;
  let tree;
  try {
    parser.reset();
    tree = parser.parse(command, null, {
      // Returning true cancels the parse (the typings say void; the runtime honours the boolean).
      progressCallback: (() => Date.now() > deadline) as unknown as (state: unknown) => void,
    });
  } catch {
    tree = null;
  }
  if (!tree) return { ...lexShell(command), failClosed: 'parsing the command timed out' };
  try {
    const walker = new TreeWalker();
    walker.statement(tree.rootNode, {});
    const notes = walker.notes;
    let failClosed: string | undefined;
    if (tree.rootNode.hasError) failClosed = 'the command does not parse as bash (a syntax error or an unfinished quote)';
    else if (walker.unknown.size) failClosed = `the command uses shell syntax the policy does not know (${[...walker.unknown].join(', ')})`;
    if (failClosed) {
      const lexed = lexShell(command);
      return { segments: lexed.segments, functions: [...walker.functions, ...lexed.functions], notes: uniq([...notes, ...lexed.notes]), failClosed, source: 'lexer' };
    }
    return { segments: walker.segments, functions: walker.functions, notes: uniq(notes), source: 'tree-sitter' };
  } finally {
    tree.delete();
  }
}

const uniq = <T>(xs: T[]) => [...new Set(xs)];

// --- walking the tree ----------------------------------------------------------------------------

interface Ctx {
  pipeline?: number;
  pipeIndex?: number;
  nested?: boolean;
  redirects?: ShellRedirect[];
  heredoc?: boolean;
  stdin?: string[];
}

const ARITHMETIC_TEST = /^-(eq|ne|lt|le|gt|ge)$/;
const SIMPLE = new Set(['command', 'declaration_command', 'unset_command', 'test_command', 'variable_assignment', 'variable_assignments']);

// Node types that only hold statements (or words we scan for substitutions).
const CONTAINERS = new Set([
  'program',
  'list',
  'compound_statement',
  'subshell',
  'do_group',
  'if_statement',
  'elif_clause',
  'else_clause',
  'while_statement',
  'for_statement',
  'c_style_for_statement',
  'case_statement',
  'case_item',
  'negated_command',
]);

// Word-level and expression node types the grammar produces; anything else is unknown.
const WORDISH = new Set([
  'word',
  'number',
  'raw_string',
  'string',
  'string_content',
  'ansi_c_string',
  'translated_string',
  'concatenation',
  'simple_expansion',
  'expansion',
  'arithmetic_expansion',
  'brace_expression',
  'command_substitution',
  'process_substitution',
  'variable_name',
  'special_variable_name',
  'subscript',
  'array',
  'extglob_pattern',
  'regex',
  'test_operator',
  'binary_expression',
  'unary_expression',
  'ternary_expression',
  'postfix_expression',
  'parenthesized_expression',
  'command_name',
  'file_descriptor',
  'heredoc_start',
  'heredoc_end',
  'heredoc_body',
  'heredoc_content',
  'comment',
  'variable_assignment',
  'variable_assignments',
  'file_redirect',
  'heredoc_redirect',
  'herestring_redirect',
]);

class TreeWalker {
  readonly segments: ShellSegment[] = [];
  readonly functions: FunctionDef[] = [];
  readonly notes: string[] = [];
  readonly unknown = new Set<string>();
  private pipelines = 0;

  statement(node: Node, ctx: Ctx): void {
    if (node.isError || node.isMissing) return; // hasError on the root reports it
    switch (node.type) {
      case 'comment':
        return;
      case 'command':
        return this.command(node, ctx);
      case 'declaration_command':
      case 'unset_command':
        return this.declaration(node, ctx);
      case 'test_command':
        this.segments.push({ text: node.text, assignments: [], words: [word('test')], redirects: ctx.redirects ?? [], kind: 'test', ...pipe(ctx) });
        this.testRisks(node, node.text.startsWith('[['));
        for (const c of named(node)) this.scanWords(c, ctx);
        return;
      case 'variable_assignment':
      case 'variable_assignments': {
        const assignments = node.type === 'variable_assignment' ? [node] : node.namedChildren.filter((c): c is Node => c?.type === 'variable_assignment');
        this.segments.push({ text: node.text, assignments: assignments.map(assignment), words: [], redirects: ctx.redirects ?? [], kind: 'assignment', ...pipe(ctx) });
        for (const a of assignments) {
          this.scanWords(a, ctx);
          this.assignmentRisks(a);
        }
        return;
      }
      case 'pipeline': {
        const id = ctx.pipeline ?? ++this.pipelines;
        let index = ctx.pipeline !== undefined ? (ctx.pipeIndex ?? 0) : 0;
        for (const child of named(node)) {
          if (child.type === 'comment') continue;
          this.statement(child, { ...ctx, pipeline: id, pipeIndex: index++, redirects: undefined });
        }
        return;
      }
      case 'redirected_statement':
        return this.redirected(node, ctx);
      case 'function_definition':
        return this.functionDef(node, ctx);
      default:
        // `((x))` and `for ((...))` evaluate arithmetic over variables.
        if (node.type === 'compound_statement' && node.text.startsWith('((') && arithmeticNamesVariable(node.text)) this.notes.push(ARITHMETIC_NOTE);
        if (node.type === 'c_style_for_statement' && arithmeticNamesVariable(node.text.slice(0, node.text.indexOf('))') + 2))) this.notes.push(ARITHMETIC_NOTE);
        if (CONTAINERS.has(node.type)) {
          for (const child of named(node)) {
            // Words in for-lists, case values and conditions are scanned for substitutions.
            if (WORDISH.has(child.type) && child.type !== 'variable_assignment' && child.type !== 'variable_assignments') this.scanWords(child, ctx);
            else this.statement(child, { ...ctx, pipeline: undefined, pipeIndex: undefined, redirects: undefined });
          }
          return;
        }
        if (WORDISH.has(node.type)) return this.scanWords(node, ctx);
        this.unknown.add(node.type);
    }
  }

  private redirected(node: Node, ctx: Ctx): void {
    const redirects: ShellRedirect[] = [];
    const continuations: Node[] = [];
    const stdin: string[] = [];
    let heredoc = false;
    for (const r of node.childrenForFieldName('redirect').filter((c): c is Node => !!c)) {
      if (r.type === 'heredoc_redirect') {
        heredoc = true;
        redirects.push({ op: '<<', target: word('') });
        stdin.push(this.heredoc(r));
        for (const c of named(r)) {
          if (c.type === 'heredoc_body') this.scanWords(c, ctx);
          else if (c.type !== 'heredoc_start' && c.type !== 'heredoc_end' && c.type !== 'heredoc_content' && !WORDISH.has(c.type)) continuations.push(c);
          else if (c.type === 'file_redirect') redirects.push(fileRedirect(c, this, ctx));
        }
      } else if (r.type === 'herestring_redirect') {
        heredoc = true;
        this.scanWords(r, ctx);
        const target = wordOf(named(r)[0]);
        stdin.push(target.text);
        redirects.push({ op: '<<<', target });
      } else if (r.type === 'file_redirect') {
        redirects.push(fileRedirect(r, this, ctx));
      } else {
        this.statement(r, ctx);
      }
    }
    const body = node.childForFieldName('body');
    // `cat <<EOF | bash`: the grammar hangs the rest of the pipeline off the here-document.
    let pipeline = ctx.pipeline;
    let pipeIndex = ctx.pipeIndex;
    if (continuations.some((c) => c.type === 'pipeline') && pipeline === undefined) {
      pipeline = ++this.pipelines;
      pipeIndex = 0;
    }
    if (body) this.statement(body, { ...ctx, pipeline, pipeIndex, redirects: [...(ctx.redirects ?? []), ...redirects], heredoc: ctx.heredoc || heredoc, stdin: [...(ctx.stdin ?? []), ...stdin] });
    // A group, loop or subshell does not pass its redirects down to the commands inside: judge them on their own.
    if (body) {
      if (!SIMPLE.has(body.type) && redirects.length) this.segments.push({ text: node.text, assignments: [], words: [], redirects, kind: 'command', ...pipe(ctx) });
    }
    // A bare redirect (`> file`) still writes: it is a segment with no words.
    else this.segments.push({ text: node.text, assignments: [], words: [], redirects: [...(ctx.redirects ?? []), ...redirects], kind: 'command', ...pipe(ctx) });
    for (const c of continuations) {
      if (c.type === 'pipeline') this.statement(c, { ...ctx, pipeline, pipeIndex: (pipeIndex ?? 0) + 1, redirects: undefined });
      else this.statement(c, { ...ctx, redirects: undefined });
    }
  }

  private functionDef(node: Node, ctx: Ctx): void {
    const name = node.childForFieldName('name')?.text ?? '';
    const before = this.segments.length;
    const body = node.childForFieldName('body');
    if (body) this.statement(body, { ...ctx, pipeline: undefined, pipeIndex: undefined, redirects: undefined });
    // `f() { ...; } > file` writes wherever the function runs: judged as a bare redirect.
    const redirects = node.childrenForFieldName('redirect').filter((r): r is Node => r?.type === 'file_redirect').map((r) => fileRedirect(r, this, ctx));
    if (redirects.length) this.segments.push({ text: node.text, assignments: [], words: [], redirects, kind: 'command', ...pipe(ctx) });
    this.functions.push({ name: unquote(name), calls: this.segments.slice(before), text: node.text });
  }

  private command(node: Node, ctx: Ctx): void {
    const assignments: ShellSegment['assignments'] = [];
    const words: ShellWord[] = [];
    const redirects: ShellRedirect[] = [...(ctx.redirects ?? [])];
    const stdin: string[] = [...(ctx.stdin ?? [])];
    let heredoc = ctx.heredoc ?? false;
    // Pushed first so the segment precedes the commands nested in its words.
    const seg: ShellSegment = { text: node.text, assignments, words, redirects, kind: 'command', ...pipe(ctx) };
    this.segments.push(seg);
    for (const child of named(node)) {
      switch (child.type) {
        case 'variable_assignment':
          this.scanWords(child, ctx);
          this.assignmentRisks(child);
          assignments.push(assignment(child));
          break;
        case 'command_name':
          this.scanWords(child, ctx);
          words.push(wordOf(named(child)[0] ?? child));
          break;
        case 'file_redirect':
          redirects.push(fileRedirect(child, this, ctx));
          break;
        case 'herestring_redirect': {
          heredoc = true;
          this.scanWords(child, ctx);
          const target = wordOf(named(child)[0]);
          stdin.push(target.text);
          redirects.push({ op: '<<<', target });
          break;
        }
        case 'heredoc_redirect':
          heredoc = true;
          stdin.push(this.heredoc(child));
          this.scanWords(child, ctx);
          break;
        case 'comment':
          break;
        default:
          if (!WORDISH.has(child.type)) this.unknown.add(child.type);
          this.scanWords(child, ctx);
          words.push(wordOf(child));
      }
    }
    if (heredoc) seg.heredoc = true;
    if (stdin.length) seg.stdin = stdin;
  }

  private declaration(node: Node, ctx: Ctx): void {
    const first = node.child(0);
    const words: ShellWord[] = [word(first?.text ?? 'export')];
    const assignments: ShellSegment['assignments'] = [];
    this.segments.push({ text: node.text, assignments, words, redirects: ctx.redirects ?? [], kind: node.type === 'unset_command' ? 'unset' : 'declaration', ...pipe(ctx) });
    for (const child of named(node)) {
      this.scanWords(child, ctx);
      if (child.type === 'variable_assignment') this.assignmentRisks(child);
      if (child.type === 'variable_assignment') assignments.push(assignment(child));
      else words.push(wordOf(child));
    }
  }

  /** Finds substitutions (and unknown node types) inside words; substituted commands become nested segments. */
  scanWords(node: Node, ctx: Ctx): void {
    if (node.isError || node.isMissing) return;
    if (node.type === 'command_substitution') {
      this.notes.push(node.text.startsWith('`') ? 'the command runs a command substitution (backticks)' : 'the command runs a command substitution ($( ))');
      for (const c of named(node)) this.statement(c, { nested: true });
      return;
    }
    if (node.type === 'process_substitution') {
      this.notes.push('the command runs a process substitution (<( ) or >( ))');
      for (const c of named(node)) this.statement(c, { nested: true });
      return;
    }
    if (node.type === 'arithmetic_expansion' && arithmeticNamesVariable(node.text)) this.notes.push(ARITHMETIC_NOTE);
    if (node.type === 'expansion') {
      const risk = expansionRisk(node.text);
      if (risk) this.notes.push(risk);
    }
    if (!WORDISH.has(node.type) && !CONTAINERS.has(node.type)) this.unknown.add(node.type);
    for (const c of named(node)) this.scanWords(c, ctx);
  }

  /** The body of a here-document as written; an unquoted delimiter means bash expands what it holds. */
  private heredoc(node: Node): string {
    const start = named(node).find((c) => c.type === 'heredoc_start')?.text ?? '';
    const body = named(node).find((c) => c.type === 'heredoc_body')?.text ?? '';
    if (!/['"\\]/.test(start)) {
      this.notes.push(...heredocBodyRisks(body));
      // The grammar reads `$( )` in a body but not backticks, which bash runs just the same.
      for (const code of backticks(body)) {
        const inner = parseShellSync(code);
        this.segments.push(...inner.segments.map((s) => ({ ...s, nested: true })));
        this.functions.push(...inner.functions);
        this.notes.push(...inner.notes, ...(inner.failClosed ? [inner.failClosed] : []));
      }
    }
    return body;
  }

  /** `a[$i]=x` evaluates the subscript as arithmetic. */
  private assignmentRisks(node: Node): void {
    const name = node.childForFieldName('name');
    if (name?.type === 'subscript' && computedSubscript(name.text)) this.notes.push(ARITHMETIC_NOTE);
  }

  /** `[[ $x -eq 1 ]]` evaluates both sides as arithmetic; `-v 'a[$i]'` evaluates the subscript. */
  private testRisks(node: Node, doubleBracket: boolean): void {
    for (const c of named(node)) {
      if (c.type === 'binary_expression') {
        const op = named(c).find((x) => x.type === 'test_operator')?.text ?? '';
        const sides = [c.childForFieldName('left'), c.childForFieldName('right')].filter((x): x is Node => !!x);
        if (doubleBracket && ARITHMETIC_TEST.test(op) && sides.some((x) => x.type !== 'number')) this.notes.push(ARITHMETIC_NOTE);
      }
      if (c.type === 'unary_expression' && /^-[vR]$/.test(named(c).find((x) => x.type === 'test_operator')?.text ?? '') && computedSubscript(c.text)) {
        this.notes.push(ARITHMETIC_NOTE);
      }
      if (c.type === 'binary_expression' || c.type === 'unary_expression' || c.type === 'parenthesized_expression') this.testRisks(c, doubleBracket);
    }
  }
}

/** The commands of the backtick substitutions in an unquoted here-document body (`\\`` is a literal backtick). */
function backticks(body: string): string[] {
  const out: string[] = [];
  let open = -1;
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '\\') i++;
    else if (body[i] === '`') {
      if (open < 0) open = i;
      else {
        out.push(body.slice(open + 1, i).replace(/\\([`$\\])/g, '$1'));
        open = -1;
      }
    }
  }
  // An unclosed one is an error in bash; read the rest as its command all the same.
  if (open >= 0) out.push(body.slice(open + 1));
  return out;
}

function pipe(ctx: Ctx): Pick<ShellSegment, 'pipeline' | 'pipeIndex' | 'nested'> {
  const out: Pick<ShellSegment, 'pipeline' | 'pipeIndex' | 'nested'> = {};
  if (ctx.pipeline !== undefined) {
    out.pipeline = ctx.pipeline;
    out.pipeIndex = ctx.pipeIndex ?? 0;
  }
  if (ctx.nested) out.nested = true;
  return out;
}

function named(node: Node): Node[] {
  return node.namedChildren.filter((c): c is Node => !!c);
}

function fileRedirect(node: Node, walker: TreeWalker, ctx: Ctx): ShellRedirect {
  walker.scanWords(node, ctx);
  const dest = node.childForFieldName('destination') ?? named(node).find((c) => c.type !== 'file_descriptor');
  let op = '';
  for (let i = 0; i < node.childCount; i++) {
    const c = node.child(i);
    if (c && !c.isNamed) op += c.type;
  }
  return { op: op || '>', target: dest ? wordOf(dest) : word('') };
}

function assignment(node: Node): { name: string; value: ShellWord | undefined } {
  const name = node.childForFieldName('name')?.text ?? node.text.split('=')[0];
  const value = node.childForFieldName('value');
  return { name, value: value ? wordOf(value) : undefined };
}

function word(text: string): ShellWord {
  return { text, static: true, quoted: false, raw: text };
}

/** The static value of a word node, or its source text marked non-static. */
function wordOf(node: Node | undefined): ShellWord {
  if (!node) return word('');
  const r = staticText(node);
  return r ? { text: r.text, static: true, quoted: r.quoted, raw: node.text } : { text: node.text, static: false, quoted: /["']/.test(node.text), raw: node.text };
}

function staticText(node: Node): { text: string; quoted: boolean } | undefined {
  switch (node.type) {
    case 'word':
    case 'command_name':
      if (node.type === 'command_name') {
        const inner = named(node)[0];
        return inner ? staticText(inner) : { text: unescape(node.text), quoted: false };
      }
      return { text: unescape(node.text), quoted: node.text.includes('\\') };
    case 'number':
    case 'extglob_pattern':
    case 'regex':
      return { text: node.text, quoted: false };
    case 'raw_string':
      return { text: node.text.slice(1, -1), quoted: true };
    case 'ansi_c_string':
      return { text: decodeAnsiC(node.text.slice(2, -1)), quoted: true };
    case 'string':
    case 'translated_string': {
      let text = '';
      for (const c of named(node)) {
        if (c.type !== 'string_content') return undefined;
        text += c.text.replace(/\\([$`"\\\n])/g, '$1');
      }
      return { text, quoted: true };
    }
    case 'concatenation': {
      let text = '';
      let quoted = false;
      for (const c of named(node)) {
        const r = staticText(c);
        if (!r) return undefined;
        text += r.text;
        quoted ||= r.quoted;
      }
      return { text, quoted };
    }
    default:
      return undefined;
  }
}

function unescape(text: string): string {
  return text.replace(/\\(.)/gs, '$1');
}

function unquote(s: string): string {
  return s.replace(/^(['"])(.*)\1$/s, '$2').replace(/\\(.)/g, '$1');
}
