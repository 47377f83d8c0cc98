/**
 * The seed's coercion rules (seed 001 §1), then strict JSON Schema validation with one uniform error.
 * Models send "5" for 5, "true" for true, "a,b" for ["a","b"] and "" for "not given"; we accept
 * those shapes once, here, instead of teaching every tool to.
 */
import { createRequire } from 'node:module';
import type { Ajv as AjvType, ErrorObject, ValidateFunction } from 'ajv';
import type { JsonSchema } from './types.js';

// Loaded on the first validation, not at engine start: start-up time is measured (bench/startup).
let ajvInstance: AjvType | undefined;
const ajv = () => {
  if (!ajvInstance) {
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    ajvInstance = new Ajv({ allErrors: false, strict: false, useDefaults: true });
  }
  return ajvInstance;
};
const compiled = new WeakMap<object, ValidateFunction>();

type Props = Record<string, { type?: string | string[] } & Record<string, unknown>>;

const typesOf = (schema: { type?: string | string[] } | undefined): string[] =>
  schema?.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];

/** Returns a coerced shallow copy of `args` according to the top-level properties of `schema`. */
export function coerceArgs(args: Record<string, unknown>, schema: JsonSchema): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Props;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const out: Record<string, unknown> = { ...args };
  for (const [name, value] of Object.entries(out)) {
    const prop = props[name];
    if (!prop) continue;
    const types = typesOf(prop);
    if (value === null && !required.has(name)) {
      delete out[name];
      continue;
    }
    if (typeof value !== 'string') continue;
    if (value === '' && !required.has(name)) {
      delete out[name];
      continue;
    }
    if (types.includes('string')) continue;
    const trimmed = value.trim();
    const scalar = coerceScalar(trimmed, types);
    if (scalar !== undefined) {
      out[name] = scalar;
    } else if (types.includes('array')) {
      // "1,2" on an array of numbers is [1, 2]: each piece follows the item type's rules.
      const itemTypes = typesOf(prop.items as { type?: string | string[] } | undefined);
      out[name] =
        parseJsonOr(trimmed, Array.isArray) ??
        trimmed
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '')
          .map((s) => (itemTypes.includes('string') ? s : (coerceScalar(s, itemTypes) ?? s)));
    } else if (types.includes('object')) {
      const parsed = parseJsonOr(trimmed, (v) => typeof v === 'object' && v !== null && !Array.isArray(v));
      if (parsed !== undefined) out[name] = parsed;
    }
  }
  return out;
}

/** "5" -> 5 for a number type, "true" -> true for a boolean type; undefined when neither applies. */
function coerceScalar(text: string, types: string[]): number | boolean | undefined {
  if ((types.includes('number') || types.includes('integer')) && text !== '' && Number.isFinite(Number(text))) return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return undefined;
}

function parseJsonOr(text: string, accept: (v: unknown) => boolean): unknown {
  if (!/^[[{]/.test(text)) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return accept(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Validates in place (defaults filled in); returns the uniform error sentence or undefined. */
export function validateArgs(tool: string, args: Record<string, unknown>, schema: JsonSchema): string | undefined {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv().compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(args)) return undefined;
  return describeSchemaError(tool, validate.errors?.[0]);
}

function describeSchemaError(tool: string, error: ErrorObject | undefined): string {
  if (!error) return `Invalid arguments for tool "${tool}".`;
  const params = error.params as Record<string, unknown>;
  const base = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  switch (error.keyword) {
    case 'required':
      return `Invalid arguments for tool "${tool}": field "${join(base, String(params.missingProperty))}" is required.`;
    case 'additionalProperties':
      return `Invalid arguments for tool "${tool}": field "${join(base, String(params.additionalProperty))}" is not a known argument.`;
    case 'enum':
      return `Invalid arguments for tool "${tool}": field "${base}" must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.`;
    case 'type':
      return `Invalid arguments for tool "${tool}": field "${base}" must be ${String(params.type)}.`;
    default:
      return `Invalid arguments for tool "${tool}": field "${base || '(arguments)'}" ${error.message ?? 'is invalid'}.`;
  }
}

const join = (base: string, name: string) => (base ? `${base}.${name}` : name);
