/**
 * The definition's check (PUT /api/dashboards/<id>, the design route, files edited by hand): every
 * problem is its own sentence and nothing is saved while one remains.
 */
import { parseCron, type CronSchedule } from '../workflows/cron.js';
import type { DashboardDefinition, Slot, WidgetType } from './types.js';
import { kindOf } from './widget-data.js';

export const DASHBOARD_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const FIELDS = ['name', 'icon', 'description', 'refresh', 'paused', 'agent', 'layout', 'tools', 'widgets', 'slots', 'prompt', 'author'];
const SLOT_FIELDS = ['id', 'title', 'hint', 'type', 'span'];
const INTERVAL = /^(\d+)\s*(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const MIN_INTERVAL_MS = 10_000;

export interface DefinitionContext {
  types: Map<string, WidgetType>;
  /** Registered tool names (built-in and connected MCP servers); undefined skips the check (a file read at start, before MCP servers connect). */
  toolNames?: string[];
  /** Defined agent names; undefined when agents are not wired (every name passes). */
  agentNames?: string[];
}

/** The refresh schedule: a cron expression through the workflows' parser, or an interval ("15m"). */
export function parseRefresh(refresh: string): CronSchedule {
  const interval = INTERVAL.exec(refresh.trim());
  if (interval) {
    const ms = Number(interval[1]) * UNIT_MS[interval[2] as keyof typeof UNIT_MS];
    if (ms < MIN_INTERVAL_MS) throw new Error(`refresh "${refresh}" is shorter than the 10 s minimum`);
    return { next: (from) => from + ms, countBetween: (from, to) => Math.max(0, Math.floor((to - from) / ms)) };
  }
  try {
    return parseCron(refresh);
  } catch (err) {
    throw new Error(`refresh "${refresh}" is neither an interval such as "15m", "1h", "30s" or "2d" nor a cron expression (${(err as Error).message})`);
  }
}

/** Every problem of a definition, one sentence each; empty when it can be saved. */
export function definitionProblems(raw: unknown, ctx: DefinitionContext): string[] {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return [`send a JSON object {name, layout, slots, prompt, icon?, description?, refresh?, paused?, agent?, tools?, widgets?} (got ${kindOf(raw)})`];
  const d = raw as Record<string, unknown>;
  const out: string[] = [];
  for (const k of Object.keys(d)) if (!FIELDS.includes(k)) out.push(`unknown field "${k}" (fields: ${FIELDS.join(', ')})`);
  if (typeof d.name !== 'string' || !d.name.trim()) out.push('name is required: what the page is called');
  else if (d.name.length > 100) out.push(`name has ${d.name.length} characters; at most 100`);
  for (const k of ['icon', 'description'] as const) if (d[k] !== undefined && typeof d[k] !== 'string') out.push(`${k} must be a string (got ${kindOf(d[k])})`);
  if (typeof d.icon === 'string' && d.icon.length > 40) out.push('icon must be at most 40 characters (an emoji or an icon name)');
  if (typeof d.prompt !== 'string' || !d.prompt.trim()) out.push('prompt is required: what the build should find out and show');
  if (d.paused !== undefined && typeof d.paused !== 'boolean') out.push(`paused must be true or false (got ${kindOf(d.paused)})`);
  if (d.author !== undefined && kindOf(d.author) !== 'object') out.push(`author must be an object (got ${kindOf(d.author)})`);
  if (d.refresh !== undefined && d.refresh !== null) {
    if (typeof d.refresh !== 'string') out.push(`refresh must be a cron expression or an interval such as "15m" (got ${kindOf(d.refresh)})`);
    else
      try {
        parseRefresh(d.refresh);
      } catch (err) {
        out.push((err as Error).message);
      }
  }
  if (d.agent !== undefined && d.agent !== null) {
    if (typeof d.agent !== 'string') out.push(`agent must be an agent name (got ${kindOf(d.agent)})`);
    else if (ctx.agentNames && !ctx.agentNames.includes(d.agent)) out.push(`agent "${d.agent}" is not defined (agents: ${ctx.agentNames.join(', ') || 'none'}); leave it out for the default dashboard agent`);
  }
  const layout = d.layout;
  if (!(Number.isInteger(layout) && (layout as number) >= 1 && (layout as number) <= 12)) out.push(`layout must be the column count, an integer from 1 to 12 (got ${JSON.stringify(layout ?? null)})`);
  const columns = Number.isInteger(layout) ? Math.min(12, Math.max(1, layout as number)) : 12;
  const names = (key: 'tools' | 'widgets', known: string[] | undefined, what: string) => {
    const v = d[key];
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) return void out.push(`${key} must be an array of ${what} names (got ${kindOf(v)})`);
    v.forEach((n, i) => {
      if (typeof n !== 'string') out.push(`${key}[${i}] must be a ${what} name (got ${kindOf(n)})`);
      else if (known && !known.includes(n)) out.push(`${key}[${i}] ${JSON.stringify(n)} is not a ${what} (${what}s: ${known.join(', ')})`);
    });
    return v as string[];
  };
  names('tools', ctx.toolNames, 'tool');
  const allowedTypes = names('widgets', [...ctx.types.keys()], 'widget type') ?? [...ctx.types.keys()];
  if (!Array.isArray(d.slots) || d.slots.length === 0) out.push(`slots must be a non-empty array of {id, title, hint?, type?, span?}: what the page should show (got ${kindOf(d.slots)})`);
  else {
    const ids = new Set<string>();
    d.slots.forEach((s, i) => out.push(...slotProblems(s, i, ids, allowedTypes, columns)));
  }
  return out;
}

function slotProblems(s: unknown, i: number, ids: Set<string>, types: string[], columns: number): string[] {
  const at = `slots[${i}]`;
  if (kindOf(s) !== 'object') return [`${at} must be an object {id, title, hint?, type?, span?} (got ${kindOf(s)})`];
  const slot = s as Record<string, unknown>;
  const out: string[] = [];
  for (const k of Object.keys(slot)) if (!SLOT_FIELDS.includes(k)) out.push(`${at}: unknown field "${k}" (fields: ${SLOT_FIELDS.join(', ')})`);
  if (typeof slot.id !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(slot.id)) out.push(`${at}.id must be letters, digits, - or _ (at most 64) (got ${JSON.stringify(slot.id ?? null)})`);
  else if (ids.has(slot.id)) out.push(`${at}.id "${slot.id}" is used twice; slot ids must be unique`);
  else ids.add(slot.id);
  if (typeof slot.title !== 'string' || !slot.title.trim()) out.push(`${at}.title is required: what the tile shows`);
  if (slot.hint !== undefined && typeof slot.hint !== 'string') out.push(`${at}.hint must be a string (got ${kindOf(slot.hint)})`);
  if (slot.type !== undefined && (typeof slot.type !== 'string' || !types.includes(slot.type))) out.push(`${at}.type ${JSON.stringify(slot.type)} is not a widget type (types: ${types.join(', ')})`);
  if (slot.span !== undefined && !(Number.isInteger(slot.span) && (slot.span as number) >= 1 && (slot.span as number) <= columns))
    out.push(`${at}.span must be an integer from 1 to ${columns} (the layout's columns) (got ${JSON.stringify(slot.span)})`);
  return out;
}

/** The definition as stored: known fields only, in a stable order. */
export function normaliseDefinition(d: DashboardDefinition): DashboardDefinition {
  const out: Record<string, unknown> = {};
  // `author` is accepted (older files carry it) but never kept: who wrote a definition is the engine's record (src/kernel/provenance.ts), not a field a client sets.
  for (const k of FIELDS) if (k !== 'author' && d[k as keyof DashboardDefinition] !== undefined && d[k as keyof DashboardDefinition] !== null) out[k] = d[k as keyof DashboardDefinition];
  out.slots = d.slots.map((s: Slot) => Object.fromEntries(SLOT_FIELDS.filter((k) => s[k as keyof Slot] !== undefined).map((k) => [k, s[k as keyof Slot]])));
  return out as unknown as DashboardDefinition;
}
