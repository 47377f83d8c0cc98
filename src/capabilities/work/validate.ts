/**
 * Checks of what a person or an agent asks for against the board's own declarations. Every error is
 * one sentence that names the valid values (the "teaching errors" of seed 001 §7.8), identical for
 * the HTTP routes and the work tools because both call these.
 */
import { badRequest } from '../../kernel/errors.js';
import type { Board } from './store.js';
import type { BoardConfig, FieldDef, KindDef, ListFilter, WorkItem } from './types.js';

const list = (xs: Array<string | number>) => (xs.length ? xs.map((x) => (typeof x === 'string' ? `"${x}"` : String(x))).join(', ') : '(none)');

export function laneOf(config: BoardConfig, status: string, project: string): string {
  const lane = config.lanes.find((l) => l.name.toLowerCase() === status.trim().toLowerCase());
  if (!lane) throw badRequest(`board "${project}" has no lane "${status}"; its lanes are ${list(config.lanes.map((l) => l.name))}`);
  return lane.name;
}

export function kindOf(config: BoardConfig, kind: string, project: string): KindDef {
  const k = config.kinds.find((d) => d.name === kind.trim().toLowerCase());
  if (!k) throw badRequest(`board "${project}" has no kind "${kind}"; its kinds are ${list(config.kinds.map((d) => d.name))}`);
  return k;
}

export function checkPriority(config: BoardConfig, priority: string | null, project: string): string | null {
  if (priority === null) return null;
  const p = config.priorities.find((x) => x.toLowerCase() === priority.trim().toLowerCase());
  if (!p) throw badRequest(`board "${project}" has no priority "${priority}"; its priorities are ${list(config.priorities)} (or null for none)`);
  return p;
}

export function checkEstimate(config: BoardConfig, estimate: number | null, project: string): number | null {
  if (estimate === null) return null;
  if (!config.estimates.includes(estimate)) throw badRequest(`board "${project}" has no estimate ${estimate}; its estimates are ${list(config.estimates)} (or null for none)`);
  return estimate;
}

export function checkLabels(config: BoardConfig, labels: string[], project: string): string[] {
  const clean = [...new Set(labels.map((l) => l.trim()).filter(Boolean))];
  if (config.labels.length) {
    const bad = clean.find((l) => !config.labels.includes(l));
    if (bad) throw badRequest(`board "${project}" has no label "${bad}"; its labels are ${list(config.labels)}`);
  }
  return clean;
}

export function checkAssignee(config: BoardConfig, assignee: string | null, project: string): string | null {
  if (assignee === null) return null;
  const a = assignee.trim();
  if (!a) throw badRequest('assignee must be a name, or null to unassign');
  if (config.members.length && !config.members.includes(a)) throw badRequest(`board "${project}" has no member "${a}"; its members are ${list(config.members)}`);
  return a;
}

function checkValue(kind: string, name: string, def: FieldDef, value: unknown): unknown {
  const bad = (want: string) => badRequest(`field "${name}" of a ${kind} must be ${want}; got ${JSON.stringify(value)}`);
  switch (def.type) {
    case 'string':
      if (typeof value !== 'string') throw bad('a string');
      return value;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw bad('a number');
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw bad('true or false');
      return value;
    case 'date':
      if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value))) throw bad('a date "YYYY-MM-DD"');
      return value;
    case 'enum':
      if (typeof value !== 'string' || !def.values!.includes(value)) throw bad(`one of ${list(def.values!)}`);
      return value;
    case 'list':
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw bad('a list of strings');
      return value;
  }
}

/** Merges `patch` into `current` (null removes a field) and checks the result against the kind. */
export function checkFields(kind: KindDef, current: Record<string, unknown>, patch: Record<string, unknown> | undefined): Record<string, unknown> {
  const out = { ...current };
  const declared = Object.keys(kind.fields);
  for (const [name, value] of Object.entries(patch ?? {})) {
    const def = kind.fields[name];
    if (!def) {
      throw badRequest(
        declared.length
          ? `a ${kind.name} has no field "${name}"; its fields are ${list(declared)}`
          : `a ${kind.name} has no custom fields, so "${name}" cannot be set; the board config declares fields per kind`,
      );
    }
    if (value === null) delete out[name];
    else out[name] = checkValue(kind.name, name, def, value);
  }
  const missing = declared.find((n) => kind.fields[n].required && (out[n] === undefined || out[n] === null || out[n] === ''));
  if (missing) throw badRequest(`a ${kind.name} needs the field "${missing}" (${kind.fields[missing].type}); send fields: {"${missing}": ...}`);
  return out;
}

export function checkParent(board: Board, parent: string | null, self?: string): string | null {
  if (parent === null) return null;
  const key = parent.trim().toUpperCase();
  if (!board.items.has(key)) throw badRequest(`parent "${parent}" is not an item of board "${board.project}"; give a key such as ${board.config.prefix}-1`);
  if (key === self) throw badRequest(`${self} cannot be its own parent`);
  // A cycle would make the tree unreadable: walk up from the new parent.
  for (let at: string | null = key, hops = 0; at && hops < 1000; hops++) {
    if (at === self) throw badRequest(`${key} is under ${self} already; making it ${self}'s parent would make a cycle`);
    at = board.items.get(at)?.parent ?? null;
  }
  return key;
}

/**
 * Resolves a list filter against one board: a lane, kind, label or assignee the board does not have
 * is an error naming the ones it has (labels and assignees: declared ones plus those in use).
 */
export function resolveFilter(board: Board, filter: ListFilter): (item: WorkItem) => boolean {
  const { config, project } = board;
  const status = filter.status !== undefined ? laneOf(config, filter.status, project) : undefined;
  const kind = filter.kind !== undefined ? kindOf(config, filter.kind, project).name : undefined;
  const items = [...board.items.values()];
  if (filter.label !== undefined) {
    const known = [...new Set([...config.labels, ...items.flatMap((i) => i.labels)])].sort();
    if (!known.includes(filter.label)) throw badRequest(`board "${project}" has no label "${filter.label}"; its labels are ${list(known)}`);
  }
  if (filter.assignee !== undefined) {
    const known = [...new Set([...config.members, ...items.map((i) => i.assignee).filter((a): a is string => !!a)])].sort();
    if (!known.includes(filter.assignee)) throw badRequest(`board "${project}" has no assignee "${filter.assignee}"; its assignees are ${list(known)}`);
  }
  const archived = filter.archived ?? false;
  return (i) =>
    i.archived === archived &&
    (status === undefined || i.status.toLowerCase() === status.toLowerCase()) &&
    (kind === undefined || i.kind === kind) &&
    (filter.label === undefined || i.labels.includes(filter.label)) &&
    (filter.assignee === undefined || i.assignee === filter.assignee);
}
