/**
 * `{{...}}` templates: `{{trigger.x}}` (the run's payload), `{{state.x}}`, `{{nodes.<id>.output}}`,
 * `{{item}}` / `{{index}}` inside a map, and `{{secret:name}}` where a node type allows it (http
 * headers). A string that is exactly one template takes the value itself (an object stays an object);
 * a template inside text is written as text (objects as JSON, missing values as nothing).
 */
import type { TemplateScope } from './types.js';

export const TEMPLATE_ROOTS = ['trigger', 'state', 'nodes', 'item', 'index'] as const;
const TEMPLATE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE = /^\{\{\s*([^{}]*?)\s*\}\}$/;

export interface TemplateRef {
  /** The text inside the braces. */
  expr: string;
  root: string;
  path: string[];
  secret?: string;
}

/** Splits `a.b[0].c` into ['a', 'b', '0', 'c']. */
export function splitPath(expr: string): string[] {
  return expr
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export function parseRef(expr: string): TemplateRef {
  const secret = /^secret:\s*([A-Za-z0-9_.-]+)$/.exec(expr);
  if (secret) return { expr, root: 'secret', path: [], secret: secret[1] };
  const path = splitPath(expr);
  return { expr, root: path[0] ?? '', path: path.slice(1) };
}

/** Every template reference in a value (strings inside arrays and objects included). */
export function findRefs(value: unknown, out: TemplateRef[] = []): TemplateRef[] {
  if (typeof value === 'string') {
    for (const m of value.matchAll(TEMPLATE)) out.push(parseRef(m[1]));
  } else if (Array.isArray(value)) {
    for (const v of value) findRefs(v, out);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) findRefs(v, out);
  }
  return out;
}

export function lookup(scope: TemplateScope, root: string, path: string[]): unknown {
  let at: unknown = (scope as Record<string, unknown>)[root];
  for (const key of path) {
    if (at === null || at === undefined) return undefined;
    if (typeof at === 'string' && key === 'length') return at.length;
    if (typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

export interface RenderOptions {
  /** Secret values already looked up for `{{secret:name}}` (only where the node type allows them). */
  secrets?: Record<string, string>;
}

function resolveRef(ref: TemplateRef, scope: TemplateScope, options: RenderOptions): unknown {
  if (ref.secret !== undefined) return options.secrets?.[ref.secret];
  return lookup(scope, ref.root, ref.path);
}

const asText = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** Renders templates in a value; non-string leaves pass through. */
export function render(value: unknown, scope: TemplateScope, options: RenderOptions = {}): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return resolveRef(parseRef(whole[1]), scope, options);
    if (!value.includes('{{')) return value;
    return value.replace(TEMPLATE, (_m, expr: string) => asText(resolveRef(parseRef(expr), scope, options)));
  }
  if (Array.isArray(value)) return value.map((v) => render(v, scope, options));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = render(v, scope, options);
    return out;
  }
  return value;
}

/** Renders to text (prompts, commands, messages). */
export function renderText(value: unknown, scope: TemplateScope, options: RenderOptions = {}): string {
  return asText(render(value, scope, options));
}

/** The secret names a value refers to. */
export const secretNames = (value: unknown): string[] => [...new Set(findRefs(value).filter((r) => r.secret !== undefined).map((r) => r.secret!))];
