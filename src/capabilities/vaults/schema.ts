/**
 * `vault.json`: the vault's note types (folder, typed frontmatter fields, immutability), its inbox,
 * its Log heading and the globs agents may not touch. A vault made without a schema gets
 * DEFAULT_SCHEMA; a folder already holding vault.json keeps its own. docs/vaults.md documents it.
 */
import picomatch from 'picomatch';
import { badRequest } from '../../kernel/errors.js';
import type { FieldKind, FieldSpec, NoteTypeSpec, VaultSchema } from './types.js';

export const SCHEMA_FILE = 'vault.json';

export const DEFAULT_SCHEMA: VaultSchema = {
  version: 1,
  types: {
    note: { folder: 'notes', fields: {}, immutable: false },
  },
  defaultType: 'note',
  inbox: 'inbox',
  logHeading: 'Log',
  agentForbidden: ['.obsidian/**', '.git/**', '.trash/**'],
};

const FIELD_KINDS: FieldKind[] = ['string', 'number', 'boolean', 'date', 'list'];
const TYPE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** The JSON Schema of `vault.json` (also the `schema` of POST /api/vaults). */
export const schemaJsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    version: { type: 'number', enum: [1] },
    types: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: {
          folder: { type: 'string' },
          immutable: { type: 'boolean' },
          fields: {
            type: 'object',
            additionalProperties: {
              type: 'object',
              additionalProperties: false,
              properties: {
                type: { type: 'string', enum: FIELD_KINDS },
                required: { type: 'boolean' },
                enum: { type: 'array', items: { type: 'string' } },
              },
              required: ['type'],
            },
          },
        },
      },
    },
    defaultType: { type: 'string' },
    inbox: { type: 'string' },
    logHeading: { type: 'string' },
    agentForbidden: { type: 'array', items: { type: 'string' } },
  },
} as const;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** A folder as the schema keeps it: vault-relative, forward slashes, no leading or trailing slash. */
export function cleanFolder(value: string, what: string): string {
  const f = value.replace(/\\/g, '/').replace(/^\/+|\/+$/g, '');
  if (f.split('/').some((s) => s === '..' || s === '.')) throw badRequest(`${what} "${value}" must be a folder inside the vault (no "." or ".." segments)`);
  return f;
}

/**
 * Checks a schema (from a request or a vault.json) and fills in defaults. `where` names the source
 * in the error sentence, so a broken vault.json says which file to fix.
 */
export function normalizeSchema(input: unknown, where = 'schema'): VaultSchema {
  if (input === undefined || input === null) return structuredClone(DEFAULT_SCHEMA);
  if (!isObject(input)) throw badRequest(`${where} must be a JSON object (see docs/vaults.md for the vault.json format)`);
  const typesIn = input.types === undefined ? DEFAULT_SCHEMA.types : input.types;
  if (!isObject(typesIn) || !Object.keys(typesIn).length) throw badRequest(`${where}.types must be an object naming at least one note type, e.g. {"note": {"folder": "notes"}}`);
  const types: Record<string, NoteTypeSpec> = {};
  for (const [name, spec] of Object.entries(typesIn)) {
    if (!TYPE_NAME.test(name)) throw badRequest(`${where}: type name "${name}" must start with a letter and hold letters, digits, dash or underscore`);
    if (!isObject(spec)) throw badRequest(`${where}.types.${name} must be an object like {"folder": "notes", "fields": {}}`);
    const fields: Record<string, FieldSpec> = {};
    if (spec.fields !== undefined && !isObject(spec.fields)) throw badRequest(`${where}.types.${name}.fields must be an object of {"<field>": {"type": "string", "required": true}}`);
    for (const [field, f] of Object.entries((spec.fields as Record<string, unknown>) ?? {})) {
      if (!isObject(f) || !FIELD_KINDS.includes(f.type as FieldKind)) {
        throw badRequest(`${where}.types.${name}.fields.${field} needs "type", one of ${FIELD_KINDS.join(', ')}`);
      }
      if (f.enum !== undefined && (!Array.isArray(f.enum) || f.enum.some((x) => typeof x !== 'string'))) throw badRequest(`${where}.types.${name}.fields.${field}.enum must be a list of strings`);
      fields[field] = { type: f.type as FieldKind, required: f.required === true, ...(f.enum ? { enum: f.enum as string[] } : {}) };
    }
    if (spec.folder !== undefined && typeof spec.folder !== 'string') throw badRequest(`${where}.types.${name}.folder must be a vault-relative folder`);
    types[name] = { folder: cleanFolder((spec.folder as string | undefined) ?? name, `${where}.types.${name}.folder`), fields, immutable: spec.immutable === true };
  }
  const defaultType = input.defaultType ?? (types.note ? 'note' : Object.keys(types)[0]);
  if (typeof defaultType !== 'string' || !types[defaultType]) throw badRequest(`${where}.defaultType "${String(defaultType)}" is not one of its types (${Object.keys(types).join(', ')})`);
  const inbox = cleanFolder(str(input.inbox, DEFAULT_SCHEMA.inbox, `${where}.inbox`), `${where}.inbox`);
  if (!inbox) throw badRequest(`${where}.inbox must name a folder inside the vault, e.g. "inbox"`);
  const logHeading = str(input.logHeading, DEFAULT_SCHEMA.logHeading, `${where}.logHeading`).trim();
  if (!logHeading) throw badRequest(`${where}.logHeading must be a heading text, e.g. "Log"`);
  const forbidden = input.agentForbidden ?? DEFAULT_SCHEMA.agentForbidden;
  if (!Array.isArray(forbidden) || forbidden.some((g) => typeof g !== 'string')) throw badRequest(`${where}.agentForbidden must be a list of globs, e.g. ["private/**"]`);
  return { version: 1, types, defaultType, inbox, logHeading, agentForbidden: forbidden as string[] };
}

function str(value: unknown, fallback: string, what: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string') throw badRequest(`${what} must be a string`);
  return value;
}

/** The type of a note: its frontmatter `type` when the schema knows it, else the type whose folder holds it (deepest first), else the default. */
export function typeOf(schema: VaultSchema, rel: string, frontmatter: Record<string, unknown>): string {
  const declared = frontmatter.type;
  if (typeof declared === 'string' && schema.types[declared]) return declared;
  let best: string | undefined;
  let depth = -1;
  for (const [name, spec] of Object.entries(schema.types)) {
    if (!spec.folder) continue;
    if (rel.startsWith(spec.folder + '/') && spec.folder.length > depth) {
      best = name;
      depth = spec.folder.length;
    }
  }
  return best ?? schema.defaultType;
}

/** Problems of a note's frontmatter against its type's fields: missing required ones and wrong types. */
export function fieldProblems(schema: VaultSchema, type: string, frontmatter: Record<string, unknown>): string[] {
  const spec = schema.types[type];
  if (!spec) return [`type "${type}" is not in vault.json (types: ${Object.keys(schema.types).join(', ')})`];
  const out: string[] = [];
  for (const [name, f] of Object.entries(spec.fields)) {
    const v = frontmatter[name];
    if (v === undefined || v === null || v === '') {
      if (f.required) out.push(`frontmatter field "${name}" (${f.type}) is required for type "${type}"`);
      continue;
    }
    if (!fits(f, v)) out.push(`frontmatter field "${name}" must be ${describe(f)} for type "${type}" (got ${JSON.stringify(v)})`);
  }
  return out;
}

function fits(f: FieldSpec, v: unknown): boolean {
  switch (f.type) {
    case 'string':
      return typeof v === 'string' && (!f.enum || f.enum.includes(v));
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'date':
      // YAML reads an unquoted 2026-11-24 as a Date; a quoted one stays a string.
      return v instanceof Date ? !Number.isNaN(v.getTime()) : typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v));
    case 'list':
      return Array.isArray(v);
  }
}

function describe(f: FieldSpec): string {
  if (f.type === 'string' && f.enum) return `one of ${f.enum.join(', ')}`;
  return { string: 'a string', number: 'a number', boolean: 'true or false', date: 'a date (YYYY-MM-DD)', list: 'a list' }[f.type];
}

/** A matcher for the schema's agentForbidden globs over vault-relative paths. */
export function forbiddenMatcher(schema: VaultSchema): (rel: string) => boolean {
  if (!schema.agentForbidden.length) return () => false;
  const m = picomatch(schema.agentForbidden, { dot: true });
  return (rel) => m(rel);
}
