/**
 * The conservative shell lexer the policy falls back on when the bash parse cannot be trusted
 * (a syntax error, an unknown construct, a timeout, an oversized command, no parser). It over-splits
 * rather than under-splits, so keys and the denylist still see every command.
 */
import type { FunctionDef, ShellParse, ShellRedirect, ShellSegment, ShellWord } from './shell-parse.js';

const uniq = <T>(xs: T[]) => [...new Set(xs)];

/**
 * A small shell lexer used when the tree cannot be trusted. It over-splits rather than under-splits:
 * substitutions, parentheses and braces end segments, and substituted text is lexed as nested
 * segments, so the denylist still sees `rm -rf` hidden in a broken command.
 */
export function lexShell(command: string): ShellParse {
  const segments: ShellSegment[] = [];
  const notes: string[] = [];
  const functions: FunctionDef[] = [];
  let pipelines = 0;
  lexInto(command, false);
  return { segments, functions, notes: uniq(notes), source: 'lexer' };

  function lexInto(src: string, nested: boolean): void {
    let words: ShellWord[] = [];
    let assignments: ShellSegment['assignments'] = [];
    let redirects: ShellRedirect[] = [];
    let heredoc = false;
    let skipSegment = false;
    let start = 0;
    let pipeline: number | undefined;
    let pipeIndex = 0;
    let cur: { text: string; static: boolean; quoted: boolean; raw: string } | undefined;
    let pendingRedirect: string | undefined;
    // Here-documents waiting for their bodies: the delimiter, whether it was quoted, and the segment reading it.
    const pendingHeredocs: Array<{ tag: string; quoted: boolean; seg?: ShellSegment }> = [];

    const endWord = () => {
      if (!cur) return;
      const w: ShellWord = cur;
      cur = undefined;
      if (pendingRedirect) {
        if (pendingRedirect === '<<' || pendingRedirect === '<<-') pendingHeredocs.push({ tag: w.text, quoted: /['"\\]/.test(w.raw) });
        redirects.push({ op: pendingRedirect, target: w });
        pendingRedirect = undefined;
        return;
      }
      // Reserved words open or close compound commands: the command is what follows them.
      if (words.length === 0 && assignments.length === 0 && !w.quoted && RESERVED.has(w.raw)) {
        if (w.raw === 'for' || w.raw === 'select' || w.raw === 'case') skipSegment = true;
        return;
      }
      const m = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/.exec(w.raw);
      if (words.length === 0 && m) {
        assignments.push({ name: m[1], value: { ...w, text: w.text.slice(w.text.indexOf('=') + 1) } });
        return;
      }
      words.push(w);
    };
    const endSegment = (end: number, op?: string) => {
      endWord();
      const text = src.slice(start, end).trim();
      if ((words.length || assignments.length || redirects.length) && !skipSegment) {
        const seg: ShellSegment = { text, assignments, words, redirects, kind: words.length ? 'command' : 'assignment' };
        if (nested) seg.nested = true;
        if (heredoc) seg.heredoc = true;
        for (const h of pendingHeredocs) h.seg ??= seg;
        if (op === '|' || op === '|&' || pipeline !== undefined) {
          pipeline ??= ++pipelines;
          seg.pipeline = pipeline;
          seg.pipeIndex = pipeIndex;
        }
        segments.push(seg);
      }
      if (op === '|' || op === '|&') pipeIndex++;
      else {
        pipeline = undefined;
        pipeIndex = 0;
      }
      words = [];
      assignments = [];
      redirects = [];
      heredoc = false;
      skipSegment = false;
    };
    const ensure = (raw = '') => (cur ??= { text: '', static: true, quoted: false, raw });

    let i = 0;
    while (i < src.length) {
      const ch = src[i];
      const next = src[i + 1];
      if (ch === '\\' && i + 1 < src.length) {
        if (next === '\n') {
          i += 2;
          continue;
        }
        ensure();
        cur!.text += next;
        cur!.raw += ch + next;
        cur!.quoted = true;
        i += 2;
        continue;
      }
      if (ch === "'") {
        const end = src.indexOf("'", i + 1);
        const stop = end < 0 ? src.length : end;
        ensure();
        cur!.text += src.slice(i + 1, stop);
        cur!.raw += src.slice(i, stop + 1);
        cur!.quoted = true;
        i = stop + 1;
        continue;
      }
      if (ch === '"') {
        let j = i + 1;
        let text = '';
        ensure();
        while (j < src.length && src[j] !== '"') {
          if (src[j] === '\\' && j + 1 < src.length) {
            text += src[j + 1];
            j += 2;
            continue;
          }
          if (src[j] === '`' || (src[j] === '$' && src[j + 1] === '(')) {
            const [inner, after] = takeSubstitution(src, j);
            notes.push(src[j] === '`' ? 'the command runs a command substitution (backticks)' : 'the command runs a command substitution ($( ))');
            lexInto(inner, true);
            cur!.static = false;
            text += src.slice(j, after);
            j = after;
            continue;
          }
          if (src[j] === '$') cur!.static = false;
          text += src[j];
          j++;
        }
        cur!.text += text;
        cur!.raw += src.slice(i, j + 1);
        cur!.quoted = true;
        i = j + 1;
        continue;
      }
      if (ch === '`' || (ch === '$' && next === '(') || ((ch === '<' || ch === '>') && next === '(')) {
        const isProc = ch !== '`' && ch !== '$';
        const [inner, after] = takeSubstitution(src, i);
        notes.push(isProc ? 'the command runs a process substitution (<( ) or >( ))' : ch === '`' ? 'the command runs a command substitution (backticks)' : 'the command runs a command substitution ($( ))');
        lexInto(inner, true);
        ensure();
        cur!.static = false;
        cur!.text += src.slice(i, after);
        cur!.raw += src.slice(i, after);
        i = after;
        continue;
      }
      if (ch === '$') {
        ensure();
        cur!.static = false;
        cur!.text += ch;
        cur!.raw += ch;
        i++;
        continue;
      }
      if (ch === ' ' || ch === '\t') {
        endWord();
        i++;
        continue;
      }
      if (ch === '\n') {
        endSegment(i);
        start = i + 1;
        i++;
        // Here-document bodies are not commands: each becomes the stdin of the segment reading it (code
        // when a shell reads it), and the substitutions of an unquoted one run when bash reads it.
        while (pendingHeredocs.length) {
          const { tag, quoted, seg } = pendingHeredocs.shift()!;
          const lines = src.slice(i).split('\n');
          let consumed = 0;
          const body: string[] = [];
          for (const line of lines) {
            consumed += line.length + 1;
            if (line.replace(/^\t+/, '') === tag) break;
            body.push(line);
          }
          const text = body.join('\n');
          if (seg) seg.stdin = [...(seg.stdin ?? []), text];
          for (let j = 0; !quoted && j < text.length; j++) {
            if (text[j] === '\\') j++;
            else if (text[j] === '`' || (text[j] === '$' && text[j + 1] === '(')) {
              const [inner, after] = takeSubstitution(text, j);
              notes.push('the here-document body holds a command substitution, which runs when the shell reads it');
              lexInto(inner, true);
              j = after - 1;
            }
          }
          i += consumed;
          start = i;
        }
        continue;
      }
      const op3 = src.slice(i, i + 3);
      const op2 = src.slice(i, i + 2);
      if (op3 === '<<<' || op3 === '&>>') {
        endWord();
        pendingRedirect = op3;
        if (op3 === '<<<') heredoc = true;
        i += 3;
        continue;
      }
      if (op2 === '&&' || op2 === '||' || op2 === '|&' || op2 === ';;') {
        endSegment(i, op2);
        i += 2;
        start = i;
        continue;
      }
      if (op2 === '<<' || op2 === '>>' || op2 === '&>' || op2 === '>|' || op2 === '>&' || op2 === '<&') {
        // `2>&1` style duplications carry no file.
        endWord();
        if ((op2 === '>&' || op2 === '<&') && /^\s*[0-9-]/.test(src.slice(i + 2))) {
          i += 2;
          while (i < src.length && /[0-9-]/.test(src[i])) i++;
          continue;
        }
        pendingRedirect = op2 === '<<' && src[i + 2] === '-' ? '<<-' : op2;
        if (op2 === '<<') heredoc = true;
        i += pendingRedirect === '<<-' ? 3 : 2;
        continue;
      }
      if (ch === '>' || ch === '<') {
        // A bare file-descriptor number before `>` belongs to the redirect, not the words.
        if (cur && /^\d+$/.test(cur.raw)) cur = undefined;
        endWord();
        pendingRedirect = ch;
        i++;
        continue;
      }
      if (ch === ';' || ch === '&' || ch === '|' || ch === '(' || ch === ')') {
        endSegment(i, ch);
        i++;
        start = i;
        continue;
      }
      if ((ch === '{' || ch === '}') && !cur && (i + 1 >= src.length || /[\s;]/.test(src[i + 1]))) {
        endSegment(i);
        i++;
        start = i;
        continue;
      }
      if (ch === '#' && !cur) {
        const nl = src.indexOf('\n', i);
        i = nl < 0 ? src.length : nl;
        continue;
      }
      ensure();
      cur!.text += ch;
      cur!.raw += ch;
      i++;
    }
    endSegment(src.length);
  }
}

const RESERVED = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'for', 'select', 'case', 'esac', '!', 'in', 'function', '{', '}', '[[', ']]']);

/** From `$(`, `<(`, `>(` or a backtick at `i`: the inner text and the index after the closing mark. */
function takeSubstitution(src: string, i: number): [string, number] {
  if (src[i] === '`') {
    let j = i + 1;
    while (j < src.length && src[j] !== '`') j += src[j] === '\\' ? 2 : 1;
    return [src.slice(i + 1, Math.min(j, src.length)), Math.min(j + 1, src.length)];
  }
  let depth = 0;
  let j = i + 1;
  for (; j < src.length; j++) {
    const c = src[j];
    if (c === '\\') {
      j++;
      continue;
    }
    if (c === "'") {
      const end = src.indexOf("'", j + 1);
      j = end < 0 ? src.length : end;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 0) break;
    }
  }
  return [src.slice(i + 2, Math.min(j, src.length)), Math.min(j + 1, src.length)];
}
