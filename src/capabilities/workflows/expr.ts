/**
 * The condition node's expression language: a small parser and evaluator, never `eval` or
 * `Function`. Values: numbers, 'strings' or "strings", true, false, null, paths into the run
 * (`trigger.x`, `state.count`, `nodes.fetch.output.status`, `item`, `index`, `a[0]`).
 * Operators by precedence: `||`, `&&`, `== != === !==`, `< <= > >=`, `in`, `+ -`, `* / %`,
 * unary `! -`. Functions: len, contains, startsWith, endsWith, lower, upper, trim, exists, number,
 * string, matches (a regular expression test, bounded input). Equality compares values (objects by JSON).
 */
import { lookup, TEMPLATE_ROOTS } from './templates.js';
import type { TemplateScope } from './types.js';

type Node =
  | { t: 'lit'; v: unknown }
  | { t: 'path'; root: string; path: Array<string | Node> }
  | { t: 'un'; op: string; a: Node }
  | { t: 'bin'; op: string; a: Node; b: Node }
  | { t: 'call'; fn: string; args: Node[] };

interface Token {
  k: 'num' | 'str' | 'id' | 'op' | 'end';
  v: string;
  at: number;
}

export class ExprError extends Error {}

const OPS = ['===', '!==', '==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '+', '-', '*', '/', '%', '(', ')', '[', ']', '.', ','];

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (/[0-9]/.test(c)) {
      const m = /^\d+(\.\d+)?/.exec(src.slice(i))!;
      out.push({ k: 'num', v: m[0], at: i });
      i += m[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      let s = '';
      while (j < src.length && src[j] !== c) {
        if (src[j] === '\\' && j + 1 < src.length) {
          const n = src[j + 1];
          s += n === 'n' ? '\n' : n === 't' ? '\t' : n;
          j += 2;
        } else s += src[j++];
      }
      if (j >= src.length) throw new ExprError(`unterminated string starting at character ${i + 1}`);
      out.push({ k: 'str', v: s, at: i });
      i = j + 1;
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][A-Za-z0-9_$-]*/.exec(src.slice(i))!;
      // A trailing '-' belongs to a following minus, not to the name (`a-1` is a name only inside paths).
      let name = m[0];
      while (name.endsWith('-')) name = name.slice(0, -1);
      out.push({ k: 'id', v: name, at: i });
      i += name.length;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw new ExprError(`unexpected character "${c}" at ${i + 1}`);
    out.push({ k: 'op', v: op, at: i });
    i += op.length;
  }
  out.push({ k: 'end', v: '', at: src.length });
  return out;
}

const FUNCTIONS = ['len', 'contains', 'startsWith', 'endsWith', 'lower', 'upper', 'trim', 'exists', 'number', 'string', 'matches'];
const BINARY: Array<string[]> = [['||'], ['&&'], ['==', '!=', '===', '!=='], ['<', '<=', '>', '>=', 'in'], ['+', '-'], ['*', '/', '%']];

export function parseExpr(src: string): Node {
  if (src.length > 4000) throw new ExprError('the expression is longer than 4000 characters');
  const toks = tokenize(src);
  let p = 0;
  const peek = () => toks[p];
  const isOp = (v: string) => (peek().k === 'op' || (v === 'in' && peek().k === 'id')) && peek().v === v;
  const expect = (v: string) => {
    if (!isOp(v)) throw new ExprError(`expected "${v}" at character ${peek().at + 1}`);
    p++;
  };
  const level = (n: number): Node => {
    if (n >= BINARY.length) return unary();
    let a = level(n + 1);
    for (;;) {
      const op = BINARY[n].find((o) => isOp(o));
      if (!op) return a;
      p++;
      a = { t: 'bin', op, a, b: level(n + 1) };
    }
  };
  const unary = (): Node => {
    if (isOp('!') || isOp('-')) {
      const op = toks[p++].v;
      return { t: 'un', op, a: unary() };
    }
    return primary();
  };
  const primary = (): Node => {
    const tok = toks[p++];
    if (tok.k === 'num') return { t: 'lit', v: Number(tok.v) };
    if (tok.k === 'str') return { t: 'lit', v: tok.v };
    if (tok.k === 'op' && tok.v === '(') {
      const e = level(0);
      expect(')');
      return e;
    }
    if (tok.k === 'id') {
      if (tok.v === 'true') return { t: 'lit', v: true };
      if (tok.v === 'false') return { t: 'lit', v: false };
      if (tok.v === 'null') return { t: 'lit', v: null };
      if (isOp('(')) {
        if (!FUNCTIONS.includes(tok.v)) throw new ExprError(`unknown function "${tok.v}"; the functions are ${FUNCTIONS.join(', ')}`);
        p++;
        const args: Node[] = [];
        if (!isOp(')')) {
          args.push(level(0));
          while (isOp(',')) {
            p++;
            args.push(level(0));
          }
        }
        expect(')');
        return { t: 'call', fn: tok.v, args };
      }
      if (!(TEMPLATE_ROOTS as readonly string[]).includes(tok.v)) {
        throw new ExprError(`unknown name "${tok.v}"; a path starts with ${TEMPLATE_ROOTS.join(', ')}`);
      }
      const path: Array<string | Node> = [];
      for (;;) {
        if (isOp('.')) {
          p++;
          const key = toks[p++];
          if (key.k !== 'id' && key.k !== 'num') throw new ExprError(`expected a name after "." at character ${key.at + 1}`);
          path.push(key.v);
        } else if (isOp('[')) {
          p++;
          path.push(level(0));
          expect(']');
        } else break;
      }
      return { t: 'path', root: tok.v, path };
    }
    throw new ExprError(tok.k === 'end' ? 'the expression ends too early' : `unexpected "${tok.v}" at character ${tok.at + 1}`);
  };
  const tree = level(0);
  if (peek().k !== 'end') throw new ExprError(`unexpected "${peek().v}" at character ${peek().at + 1}`);
  return tree;
}

const same = (a: unknown, b: unknown) => a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));
const text = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

function evaluate(n: Node, scope: TemplateScope): unknown {
  switch (n.t) {
    case 'lit':
      return n.v;
    case 'path':
      return lookup(scope, n.root, n.path.map((k) => (typeof k === 'string' ? k : String(evaluate(k, scope)))));
    case 'un': {
      const a = evaluate(n.a, scope);
      return n.op === '!' ? !a : -Number(a);
    }
    case 'bin': {
      if (n.op === '&&') return evaluate(n.a, scope) && evaluate(n.b, scope);
      if (n.op === '||') return evaluate(n.a, scope) || evaluate(n.b, scope);
      const a = evaluate(n.a, scope) as never;
      const b = evaluate(n.b, scope) as never;
      switch (n.op) {
        case '==':
        case '===':
          return same(a, b);
        case '!=':
        case '!==':
          return !same(a, b);
        case '<':
          return a < b;
        case '<=':
          return a <= b;
        case '>':
          return a > b;
        case '>=':
          return a >= b;
        case 'in':
          return Array.isArray(b) ? (b as unknown[]).some((x) => same(x, a)) : typeof b === 'string' ? (b as string).includes(text(a)) : !!b && typeof b === 'object' && text(a) in (b as object);
        case '+':
          return typeof a === 'number' && typeof b === 'number' ? a + b : text(a) + text(b);
        case '-':
          return Number(a) - Number(b);
        case '*':
          return Number(a) * Number(b);
        case '/':
          return Number(a) / Number(b);
        case '%':
          return Number(a) % Number(b);
      }
      return undefined;
    }
    case 'call': {
      const args = n.args.map((a) => evaluate(a, scope));
      const [x, y] = args;
      switch (n.fn) {
        case 'len':
          return Array.isArray(x) || typeof x === 'string' ? x.length : x && typeof x === 'object' ? Object.keys(x).length : 0;
        case 'contains':
          return Array.isArray(x) ? x.some((v) => same(v, y)) : text(x).includes(text(y));
        case 'startsWith':
          return text(x).startsWith(text(y));
        case 'endsWith':
          return text(x).endsWith(text(y));
        case 'lower':
          return text(x).toLowerCase();
        case 'upper':
          return text(x).toUpperCase();
        case 'trim':
          return text(x).trim();
        case 'exists':
          return x !== undefined && x !== null;
        case 'number':
          return Number(x);
        case 'string':
          return text(x);
        case 'matches': {
          // Bounded input keeps a pathological pattern from holding the engine for long.
          try {
            return new RegExp(text(y)).test(text(x).slice(0, 10_000));
          } catch {
            throw new ExprError(`matches(): "${text(y)}" is not a valid regular expression`);
          }
        }
      }
      return undefined;
    }
  }
}

const cache = new Map<string, Node>();

/** Evaluates an expression against a run's scope; throws ExprError with a sentence on bad syntax. */
export function evalExpr(src: string, scope: TemplateScope): unknown {
  let tree = cache.get(src);
  if (!tree) {
    tree = parseExpr(src);
    if (cache.size > 500) cache.clear();
    cache.set(src, tree);
  }
  return evaluate(tree, scope);
}

/** The node ids an expression reads through `nodes.<id>` (validation). */
export function exprNodeRefs(src: string): string[] {
  const out: string[] = [];
  const walk = (n: Node) => {
    if (n.t === 'path') {
      if (n.root === 'nodes' && typeof n.path[0] === 'string') out.push(n.path[0]);
      n.path.forEach((k) => typeof k !== 'string' && walk(k));
    } else if (n.t === 'un') walk(n.a);
    else if (n.t === 'bin') (walk(n.a), walk(n.b));
    else if (n.t === 'call') n.args.forEach(walk);
  };
  walk(parseExpr(src));
  return out;
}
