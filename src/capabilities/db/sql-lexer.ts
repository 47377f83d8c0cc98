/**
 * A lexer for the three SQL dialects, written for classification, not for execution: it must see
 * what the server sees. Strings, quoted identifiers and comments are recognised the way each
 * server's lexer does (PostgreSQL dollar quotes, E'' and U&""; MySQL backslash escapes, `#` and
 * `-- ` comments and `/*! ... *\/` executable comments, whose content is code; SQLite [brackets]).
 * Model sessions pin the settings this assumes (PostgreSQL standard_conforming_strings on, MySQL
 * sql_mode without NO_BACKSLASH_ESCAPES and ANSI_QUOTES), so the server cannot read the text
 * differently. Anything unterminated is reported, and the classifier fails closed on it.
 */
import type { DbEngine } from './types.js';

export type TokenType = 'word' | 'qident' | 'string' | 'number' | 'punct' | 'param';

export interface Token {
  type: TokenType;
  /** Words lower-cased; quoted identifiers unquoted (case kept); punctuation as written. */
  value: string;
  start: number;
  end: number;
  /** A PostgreSQL U&"..." identifier: its escapes could spell any name. */
  unicode?: boolean;
}

export interface Lexed {
  tokens: Token[];
  /** A quote or comment never closed: what the server makes of the rest is unknowable. */
  unterminated?: string;
}

const isWordStart = (c: string) => /[A-Za-z_\u0080-\uffff]/.test(c);
const isWordChar = (c: string) => /[A-Za-z0-9_$\u0080-\uffff]/.test(c);
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';

export function lex(sql: string, engine: DbEngine): Lexed {
  const tokens: Token[] = [];
  const n = sql.length;
  let i = 0;
  let execComment = false; // inside MySQL /*! ... */: the content is code
  const push = (type: TokenType, value: string, start: number, end: number, extra: Partial<Token> = {}) =>
    tokens.push({ type, value, start, end, ...extra });

  /** A quoted run ending at `quote`; doubled quotes escape; `backslash` escapes too (MySQL, E''). */
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

  while (i < n) {
    const c = sql[i];
    const next = sql[i + 1];
    if (isSpace(c)) {
      i++;
      continue;
    }
    // Comments.
    if (c === '-' && next === '-') {
      // MySQL needs whitespace (or the end) after "--"; otherwise it is two minus signs.
      if (engine !== 'mysql' || i + 2 >= n || isSpace(sql[i + 2]) || sql.charCodeAt(i + 2) < 32) {
        const nl = sql.indexOf('\n', i);
        i = nl === -1 ? n : nl + 1;
        continue;
      }
    }
    if (c === '#' && engine === 'mysql') {
      const nl = sql.indexOf('\n', i);
      i = nl === -1 ? n : nl + 1;
      continue;
    }
    if (c === '*' && next === '/' && execComment) {
      execComment = false;
      i += 2;
      continue;
    }
    if (c === '/' && next === '*') {
      if (engine === 'mysql') {
        const m = /^\/\*(M?!)(\d{5,6})?/.exec(sql.slice(i, i + 12));
        if (m) {
          if (execComment) return { tokens, unterminated: 'a nested executable comment' };
          execComment = true;
          i += m[0].length;
          continue;
        }
      }
      if (engine === 'postgres') {
        // PostgreSQL block comments nest.
        let depth = 1;
        let j = i + 2;
        while (j < n && depth > 0) {
          if (sql[j] === '/' && sql[j + 1] === '*') (depth++, (j += 2));
          else if (sql[j] === '*' && sql[j + 1] === '/') (depth--, (j += 2));
          else j++;
        }
        if (depth > 0) return { tokens, unterminated: 'a block comment' };
        i = j;
        continue;
      }
      const end = sql.indexOf('*/', i + 2);
      if (end === -1) return { tokens, unterminated: 'a block comment' };
      i = end + 2;
      continue;
    }
    // Strings.
    if (c === "'") {
      const end = quoted(i + 1, "'", engine === 'mysql');
      if (end === -1) return { tokens, unterminated: 'a string' };
      push('string', sql.slice(i + 1, end - 1), i, end);
      i = end;
      continue;
    }
    if (engine === 'postgres' && (c === 'E' || c === 'e') && next === "'") {
      const end = quoted(i + 2, "'", true);
      if (end === -1) return { tokens, unterminated: 'a string' };
      push('string', sql.slice(i + 2, end - 1), i, end);
      i = end;
      continue;
    }
    if (engine === 'postgres' && (c === 'U' || c === 'u') && next === '&' && (sql[i + 2] === "'" || sql[i + 2] === '"')) {
      const q = sql[i + 2];
      const end = quoted(i + 3, q, false);
      if (end === -1) return { tokens, unterminated: q === '"' ? 'a quoted identifier' : 'a string' };
      if (q === '"') push('qident', sql.slice(i + 3, end - 1).replace(/""/g, '"'), i, end, { unicode: true });
      else push('string', sql.slice(i + 3, end - 1), i, end);
      i = end;
      continue;
    }
    if (engine === 'postgres' && c === '$') {
      const m = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(sql.slice(i, i + 200));
      if (m) {
        const tag = m[0];
        const end = sql.indexOf(tag, i + tag.length);
        if (end === -1) return { tokens, unterminated: 'a dollar-quoted string' };
        push('string', sql.slice(i + tag.length, end), i, end + tag.length);
        i = end + tag.length;
        continue;
      }
      if (/[0-9]/.test(next ?? '')) {
        let j = i + 1;
        while (j < n && /[0-9]/.test(sql[j])) j++;
        push('param', sql.slice(i, j), i, j);
        i = j;
        continue;
      }
    }
    if (c === '"') {
      // MySQL (without ANSI_QUOTES, pinned for model sessions) reads "..." as a string with escapes.
      const end = quoted(i + 1, '"', engine === 'mysql');
      if (end === -1) return { tokens, unterminated: engine === 'mysql' ? 'a string' : 'a quoted identifier' };
      const body = sql.slice(i + 1, end - 1);
      if (engine === 'mysql') push('string', body, i, end);
      else push('qident', body.replace(/""/g, '"'), i, end);
      i = end;
      continue;
    }
    if (c === '`' && engine !== 'postgres') {
      const end = quoted(i + 1, '`', false);
      if (end === -1) return { tokens, unterminated: 'a quoted identifier' };
      push('qident', sql.slice(i + 1, end - 1).replace(/``/g, '`'), i, end);
      i = end;
      continue;
    }
    if (c === '[' && engine === 'sqlite') {
      const end = sql.indexOf(']', i + 1);
      if (end === -1) return { tokens, unterminated: 'a quoted identifier' };
      push('qident', sql.slice(i + 1, end), i, end + 1);
      i = end + 1;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(next ?? ''))) {
      let j = i + 1;
      while (j < n && /[0-9A-Za-z_.]/.test(sql[j])) j++;
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
    if ((c === '?' || c === ':' || c === '@') && engine !== 'postgres' && next !== undefined && isWordStart(next)) {
      let j = i + 1;
      while (j < n && (isWordChar(sql[j]) || sql[j] === '@')) j++;
      push('param', sql.slice(i, j), i, j);
      i = j;
      continue;
    }
    push('punct', c, i, i + 1);
    i++;
  }
  if (execComment) return { tokens, unterminated: 'an executable comment' };
  return { tokens };
}

/**
 * Splits lexed text into statements on top-level semicolons. Bodies that hold semicolons of their
 * own (SQLite CREATE TRIGGER ... BEGIN ... END, PostgreSQL BEGIN ATOMIC ... END) stay whole.
 */
export function splitStatements(sql: string, lexed: Lexed): Array<{ text: string; tokens: Token[] }> {
  const out: Array<{ text: string; tokens: Token[] }> = [];
  let current: Token[] = [];
  let depth = 0;
  const flush = (endAt: number) => {
    if (current.length) out.push({ text: sql.slice(current[0].start, endAt).trim(), tokens: current });
    current = [];
    depth = 0;
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
  if (current.length) flush(current[current.length - 1].end);
  return out;
}
