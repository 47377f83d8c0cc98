/**
 * A board's config (`board.json`): parsed and checked with one teaching sentence per mistake, and the
 * documented default that `PUT /api/work/<project>` with `{}` gets (docs/work.md).
 */
import { badRequest } from '../../kernel/errors.js';
import { type BoardConfig, FIELD_TYPES, type FieldDef, type KindDef, LANE_CATEGORIES, type LaneDef } from './types.js';

export const PROJECT_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const PREFIX = /^[A-Z][A-Z0-9]{0,9}$/;

export function checkProject(project: string): string {
  if (!PROJECT_NAME.test(project)) throw badRequest(`"${project}" is not a board name; use letters, digits, "-" and "_" (up to 64), starting with a letter or digit, e.g. "engine"`);
  return project;
}

/** The prefix a board gets when its config names none: the project's letters, upper-cased, at most 4. */
export function defaultPrefix(project: string): string {
  const letters = project.toUpperCase().replace(/[^A-Z0-9]/g, '').replace(/^[0-9]+/, '');
  return letters.slice(0, 4) || 'WORK';
}

/** The documented default board (docs/work.md): three kinds, Linear's five lanes, four priorities. */
export function defaultConfig(project: string): BoardConfig {
  return {
    name: project,
    prefix: defaultPrefix(project),
    kinds: [
      { name: 'task', fields: {} },
      { name: 'bug', fields: { severity: { type: 'enum', values: ['minor', 'major', 'critical'] } } },
      { name: 'feature', fields: {} },
    ],
    lanes: [
      { name: 'Backlog', category: 'backlog' },
      { name: 'Todo', category: 'unstarted' },
      { name: 'In Progress', category: 'started' },
      { name: 'Done', category: 'completed' },
      { name: 'Canceled', category: 'canceled' },
    ],
    priorities: ['low', 'medium', 'high', 'urgent'],
    estimates: [1, 2, 3, 5, 8],
    labels: [],
    members: [],
  };
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const names = (xs: string[]) => xs.map((x) => `"${x}"`).join(', ');

function stringList(raw: unknown, what: string, example: string): string[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || raw.some((x) => typeof x !== 'string' || !x.trim())) throw badRequest(`${what} must be a list of non-empty strings, e.g. ${example}`);
  const list = raw.map((x: string) => x.trim());
  const dup = list.find((x, i) => list.indexOf(x) !== i);
  if (dup) throw badRequest(`${what} names "${dup}" twice; each may appear once`);
  return list;
}

function field(kind: string, name: string, raw: unknown): FieldDef {
  const where = `kinds "${kind}" field "${name}"`;
  const def = typeof raw === 'string' ? { type: raw } : raw;
  if (!isObj(def)) throw badRequest(`${where} must be {"type": ${FIELD_TYPES.map((t) => `"${t}"`).join(' | ')}, "required"?: boolean, "values"?: [...]}`);
  const type = def.type;
  if (typeof type !== 'string' || !(FIELD_TYPES as readonly string[]).includes(type)) throw badRequest(`${where} has type ${JSON.stringify(type)}; the types are ${names([...FIELD_TYPES])}`);
  const out: FieldDef = { type: type as FieldDef['type'] };
  if (def.required !== undefined) {
    if (typeof def.required !== 'boolean') throw badRequest(`${where}: required must be true or false`);
    if (def.required) out.required = true;
  }
  if (type === 'enum') out.values = stringList(def.values, `${where} values`, '["low", "high"]');
  if (type === 'enum' && !out.values!.length) throw badRequest(`${where} is an enum with no values; give "values": ["...", "..."]`);
  if (typeof def.description === 'string') out.description = def.description;
  return out;
}

function kinds(raw: unknown): KindDef[] {
  if (!Array.isArray(raw) || !raw.length) throw badRequest('kinds must be a non-empty list such as ["task", "bug"] or [{"name": "bug", "fields": {"severity": {"type": "enum", "values": ["minor", "major"]}}}]');
  const out = raw.map((k): KindDef => {
    const def = typeof k === 'string' ? { name: k } : k;
    if (!isObj(def) || typeof def.name !== 'string' || !/^[a-z][a-z0-9_-]{0,31}$/.test(def.name)) {
      throw badRequest(`each kind needs a lower-case name of letters, digits, "-" or "_" (e.g. "task"); got ${JSON.stringify(k)}`);
    }
    const fieldsRaw = def.fields ?? {};
    if (!isObj(fieldsRaw)) throw badRequest(`kinds "${def.name}" fields must be an object of field name to {"type": ...}`);
    const fields: Record<string, FieldDef> = {};
    for (const [n, f] of Object.entries(fieldsRaw)) {
      if (!/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(n)) throw badRequest(`kinds "${def.name}" field name "${n}" must start with a letter and hold letters, digits, "-" or "_"`);
      fields[n] = field(def.name, n, f);
    }
    return { name: def.name, fields };
  });
  const dup = out.find((k, i) => out.findIndex((o) => o.name === k.name) !== i);
  if (dup) throw badRequest(`kinds names "${dup.name}" twice; each kind may appear once`);
  return out;
}

function lanes(raw: unknown): LaneDef[] {
  const shape = 'lanes must be a non-empty list of {"name": "Todo", "category": "unstarted"} (categories: backlog, unstarted, started, completed, canceled)';
  if (!Array.isArray(raw) || !raw.length) throw badRequest(shape);
  const out = raw.map((l): LaneDef => {
    if (!isObj(l) || typeof l.name !== 'string' || !l.name.trim()) throw badRequest(shape);
    if (typeof l.category !== 'string' || !(LANE_CATEGORIES as readonly string[]).includes(l.category)) {
      throw badRequest(`lane "${l.name}" has category ${JSON.stringify(l.category)}; the categories are ${names([...LANE_CATEGORIES])}`);
    }
    return { name: l.name.trim(), category: l.category as LaneDef['category'] };
  });
  const dup = out.find((l, i) => out.findIndex((o) => o.name.toLowerCase() === l.name.toLowerCase()) !== i);
  if (dup) throw badRequest(`lanes names "${dup.name}" twice; lane names must differ (case does not count)`);
  return out;
}

/** A full config from what a client sent: every member it leaves out comes from the default. */
export function parseConfig(project: string, raw: unknown): BoardConfig {
  if (!isObj(raw)) throw badRequest('a board config must be a JSON object (send {} for the default board)');
  const known = ['name', 'prefix', 'kinds', 'lanes', 'priorities', 'estimates', 'labels', 'members'];
  const unknown = Object.keys(raw).find((k) => !known.includes(k));
  if (unknown) throw badRequest(`unknown board setting "${unknown}"; a board config takes ${names(known)}`);
  const base = defaultConfig(project);
  if (raw.name !== undefined && (typeof raw.name !== 'string' || !raw.name.trim())) throw badRequest('name must be a non-empty string');
  if (raw.prefix !== undefined && (typeof raw.prefix !== 'string' || !PREFIX.test(raw.prefix))) {
    throw badRequest(`prefix ${JSON.stringify(raw.prefix)} must be 1-10 upper-case letters or digits starting with a letter, e.g. "ENG" (keys read ENG-1, ENG-2 ...)`);
  }
  if (raw.estimates !== undefined && (!Array.isArray(raw.estimates) || raw.estimates.some((e) => typeof e !== 'number' || !Number.isFinite(e) || e < 0))) {
    throw badRequest('estimates must be a list of non-negative numbers, e.g. [1, 2, 3, 5, 8]');
  }
  return {
    name: raw.name !== undefined ? (raw.name as string).trim() : base.name,
    prefix: (raw.prefix as string | undefined) ?? base.prefix,
    kinds: raw.kinds !== undefined ? kinds(raw.kinds) : base.kinds,
    lanes: raw.lanes !== undefined ? lanes(raw.lanes) : base.lanes,
    priorities: raw.priorities !== undefined ? stringList(raw.priorities, 'priorities', '["low", "medium", "high"]') : base.priorities,
    estimates: raw.estimates !== undefined ? [...new Set(raw.estimates as number[])] : base.estimates,
    labels: stringList(raw.labels, 'labels', '["frontend", "api"]'),
    members: stringList(raw.members, 'members', '["ann", "bob"]'),
  };
}
