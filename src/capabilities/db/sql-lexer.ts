/**
 * The lexer for MySQL/MariaDB and SQLite, written for classification, not execution: it must see
 * exactly what the server sees, and it reports (`unterminated`) whatever it cannot read the
 * server's way with certainty, which the classifier refuses. PostgreSQL needs none: its own parser
 * is used (pg-parser.ts).
 *
 * MySQL/MariaDB, after the server's lexer (sql/sql_lex.cc) and checked against a real MariaDB by
 * test/db/readonly-corpus.test.ts:
 *   - `--` starts a comment only when a space or a control character (or the end) follows the
 *     dashes, `#` always; both end at \n only (\r, \v, \f do not end them);
 *   - a plain block comment ends at the first `*\/` and does not nest;
 *   - `/*!` and `/*M!` comments (a capital M: `/*m!` is a plain comment): with no 5- or 6-digit
 *     version right after the `!`, their content is SQL; with a version it is SQL on servers at
 *     least that new and skipped on older ones, and a skipped one ends at its first `*\/` whatever
 *     quotes stand before it (one nested `/* *\/` is allowed). Which a server does depends on its
 *     version, so the caller lexes both readings (`versionComments: 'run' | 'skip'`) and takes the
 *     stricter;
 *   - strings in '' and "" end at a quote not escaped by a backslash or doubled (the engine's
 *     sessions pin an sql_mode without NO_BACKSLASH_ESCAPES and ANSI_QUOTES, see drivers/mysql.ts);
 *     X'..' and B'..' hold hex or binary digits only, without escapes;
 *   - a NUL character ends line comments in the server but nothing here: it is refused.
 * SQLite: -- comments end at \n, block comments do not nest, '' strings double their quotes, and
 * identifiers are "", `` or [].
 */
export type LexEngine = 'mysql' | 'sqlite';
export type TokenType = 'word' | 'qident' | 'string' | 'number' | 'punct' | 'param';

export interface Token {
  type: TokenType;
  /** Words lower-cased; quoted identifiers unquoted (case kept); punctuation as written. */
  value: string;
  start: number;
  end: number;
}

export interface Lexed {
  tokens: Token[];
  /** Why the text cannot be read with certainty (a quote or comment never closed ...): a sentence's middle. */
  unterminated?: string;
  /** The text holds a versioned comment: the server's version decides whether its content runs. */
  versioned?: boolean;
}

export interface LexOptions {
  /** How a versioned MySQL comment (`/*!50000 ... *\/`) is read: as SQL (a new enough server) or skipped. */
  versionComments?: 'run' | 'skip';
}

const isWordStart = (c: string) => /[A-Za-z_\u0080-\uffff]/.test(c);
const isWordChar = (c: string) => /[A-Za-z0-9_$\u0080-\uffff]/.test(c);
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';
/** my_iscntrl: C0 controls and DEL. */
const isControl = (c: string) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127;

export function lex(sql: string, engine: LexEngine, options: LexOptions = {}): Lexed {
  const tokens: Token[] = [];
  const n = sql.length;
  const mysql = engine === 'mysql';
  let i = 0;
  let versioned = false;
  let inVersion = false; // inside a /*! ... */ whose content is SQL
  const push = (type: TokenType, value: string, start: number, end: number) => tokens.push({ type, value, start, end });
  const fail = (what: string): Lexed => ({ tokens, unterminated: what, versioned });
  if (sql.includes('\0')) return fail('a NUL character, which ends comments in the server');

  /** A quoted run ending at `quote`; doubled quotes escape; `backslash` escapes too (MySQL). */
  const quoted = (from: number, quote: string, backslash: boolean): number => {
    let j = from;
    while (j < n) {
      const c = sql[j];
      if (backslash && c === '\\') {
        j += 2;
        continue;
      }
      if (c === quote) {
        if (sql[j + 1] === quote) {
          j += 2;
          continue;
        }
        return j + 1;
      }
      j++;
    }
    return -1;
  };
  /** The end of a line comment: after its \n, or the end of the text. */
  const lineEnd = (from: number) => {
    const nl = sql.indexOf('\n', from);
    return nl === -1 ? n : nl + 1;
  };

  while (i < n) {
    const c = sql[i];
    const next = sql[i + 1];
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === '-' && next === '-' && (!mysql || i + 2 >= n || isSpace(sql[i + 2]) || isControl(sql[i + 2]))) {
      i = lineEnd(i);
      continue;
    }
    if (c === '#' && mysql) {
      i = lineEnd(i);
      continue;
    }
    if (c === ';' && inVersion) return fail('a ; inside a version comment (send its statements one at a time)');
    if (c === '*' && next === '/' && inVersion) {
      inVersion = false;
      i += 2;
      continue;
    }
    if (c === '/' && next === '*') {
      const m = mysql ? /^\/\*(M?)!(\d{5}\d?)?/.exec(sql.slice(i, i + 11)) : null;
      if (m) {
        if (inVersion) return fail('a version comment inside another');
        if (m[1] || m[2]) versioned = true;
        // /*M! is MariaDB's: MySQL reads it as a plain comment, so it too depends on the server.
        const skip = (m[1] || m[2]) && options.versionComments === 'skip';
        if (!skip) {
          inVersion = true;
          i += m[0].length;
          continue;
        }
        // Skipped: ends at the first */, allowing one nested /* */ (sql_lex.cc consume_comment(lip, 1)).
        let j = i + m[0].length;
        let nested = false;
        for (;;) {
          if (j >= n) return fail('a version comment that is never closed');
          if (!nested && sql[j] === '/' && sql[j + 1] === '*') (nested = true), (j += 2);
          else if (sql[j] === '*' && sql[j + 1] === '/') {
            j += 2;
            if (!nested) break;
            nested = false;
          } else j++;
        }
        i = j;
        continue;
      }
      const end = sql.indexOf('*/', i + 2);
      if (end === -1) return fail('a block comment that is never closed');
      i = end + 2;
      continue;
    }
    if (mysql && (c === 'x' || c === 'X' || c === 'b' || c === 'B') && next === "'" && (i === 0 || !isWordChar(sql[i - 1]))) {
      const end = sql.indexOf("'", i + 2);
      if (end === -1) return fail('a string that is never closed');
      const digits = sql.slice(i + 2, end);
      if (!(c === 'x' || c === 'X' ? /^[0-9A-Fa-f]*$/ : /^[01]*$/).test(digits)) return fail(`an ${c.toUpperCase()}'' literal with other characters than its digits`);
      push('string', digits, i, end + 1);
      i = end + 1;
      continue;
    }
    if (c === "'" || (c === '"' && mysql)) {
      const end = quoted(i + 1, c, mysql);
      if (end === -1) return fail('a string that is never closed');
      push('string', sql.slice(i + 1, end - 1), i, end);
      i = end;
      continue;
    }
    if (c === '"' || c === '`') {
      const end = quoted(i + 1, c, false);
      if (end === -1) return fail('a quoted identifier that is never closed');
      push('qident', sql.slice(i + 1, end - 1).split(c + c).join(c), i, end);
      i = end;
      continue;
    }
    if (c === '[' && !mysql) {
      const end = sql.indexOf(']', i + 1);
      if (end === -1) return fail('a quoted identifier that is never closed');
      push('qident', sql.slice(i + 1, end), i, end + 1);
      i = end + 1;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(next ?? ''))) {
      let j = i + 1;
      while (j < n && /[0-9A-Za-z_.$]/.test(sql[j])) j++;
      push('number', sql.slice(i, j), i, j);
      i = j;
      continue;
    }
    if (isWordStart(c)) {
      let j = i + 1;
      while (j < n && isWordChar(sql[j])) j++;
      push('word', sql.slice(i, j).toLowerCase(), i, j);
      i = j;
      continue;
    }
    if ((c === '?' || c === ':' || c === '@') && next !== undefined && isWordStart(next)) {
      let j = i + 1;
      while (j < n && (isWordChar(sql[j]) || sql[j] === '@')) j++;
      push('param', sql.slice(i, j), i, j);
      i = j;
      continue;
    }
    push('punct', c, i, i + 1);
    i++;
  }
  if (inVersion) return fail('a version comment that is never closed');
  return { tokens, versioned };
}

/**
 * Splits lexed text into statements on top-level semicolons. Each statement's text runs from just
 * after the previous semicolon to its own, comments included (a version comment keeps its opener).
 * `keepEmpty` keeps the statements with no token (comments only), so two readings of one text line up.
 * Bodies that hold semicolons of their own (SQLite CREATE TRIGGER ... BEGIN ... END) stay whole.
 */
export function splitStatements(sql: string, lexed: Lexed, keepEmpty = false): Array<{ text: string; tokens: Token[] }> {
  const out: Array<{ text: string; tokens: Token[] }> = [];
  let current: Token[] = [];
  let depth = 0;
  let from = 0;
  const flush = (endAt: number) => {
    if (current.length || keepEmpty) out.push({ text: sql.slice(from, endAt).replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, ''), tokens: current });
    current = [];
    depth = 0;
    from = endAt + 1;
  };
  for (const t of lexed.tokens) {
    if (t.type === 'punct' && t.value === ';' && depth === 0) {
      flush(t.start);
      continue;
    }
    if (t.type === 'word' && current.length && current[0].type === 'word' && current[0].value === 'create') {
      if (t.value === 'begin' || t.value === 'case') depth++;
      else if (t.value === 'end' && depth > 0) depth--;
    }
    current.push(t);
  }
  if (current.length || keepEmpty) flush(sql.length);
  return out;
}
