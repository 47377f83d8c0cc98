/**
 * One item is one markdown file, `<KEY>.md`: YAML frontmatter, the body, then an append-only
 * `## Activity` section of dated, attributed lines. A person may edit any of it by hand; the engine
 * rewrites the frontmatter and body it was asked to change and only ever appends to the activity.
 */
import { formatFrontmatter, parseFrontmatter } from '../../kernel/home.js';
import type { Actor, WorkItem } from './types.js';

export const ACTIVITY_HEADING = '## Activity';
const ACTIVITY = /^## Activity[ \t]*$/m;

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() && Number.isFinite(Number(v)) ? Number(v) : null);
const date = (v: unknown): string | null => (v instanceof Date ? v.toISOString() : str(v));

/** Reads an item file; what a hand edit broke is reported in `problem`, never thrown. */
export function parseItem(project: string, key: string, text: string): WorkItem {
  let data: Record<string, unknown> = {};
  let rest = text;
  let problem: string | undefined;
  try {
    ({ data, body: rest } = parseFrontmatter(text));
  } catch (err) {
    problem = `the frontmatter is not valid YAML (${(err as Error).message.split('\n')[0]}); fix ${key}.md by hand`;
    rest = text.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n?/, '');
  }
  const m = ACTIVITY.exec(rest);
  const body = (m ? rest.slice(0, m.index) : rest).replace(/^\n+/, '').replace(/\s+$/, '');
  const activity = m
    ? rest
        .slice(m.index + m[0].length)
        .split(/\r?\n/)
        .filter((l) => l.startsWith('- '))
        .map((l) => l.slice(2))
    : [];
  const labels = Array.isArray(data.labels) ? data.labels.map(str).filter((l): l is string => !!l) : typeof data.labels === 'string' ? [data.labels] : [];
  const fields = data.fields && typeof data.fields === 'object' && !Array.isArray(data.fields) ? (data.fields as Record<string, unknown>) : {};
  const item: WorkItem = {
    key,
    project,
    kind: str(data.kind) ?? 'task',
    title: str(data.title) ?? key,
    status: str(data.status) ?? '',
    assignee: str(data.assignee),
    labels,
    estimate: num(data.estimate),
    priority: str(data.priority),
    rank: num(data.rank) ?? 0,
    fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v instanceof Date ? v.toISOString().slice(0, 10) : v])),
    archived: data.archived === true || data.archived === 'true',
    parent: str(data.parent),
    created: date(data.created),
    updated: date(data.updated),
    body,
    activity,
  };
  if (problem) item.problem = problem;
  return item;
}

/** The text under the Activity heading of a file as it is on disk (null: no such heading). */
export function activitySection(text: string): string | null {
  const m = ACTIVITY.exec(text.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n?/, ''));
  if (!m) return null;
  const rest = text.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n?/, '');
  return rest.slice(m.index + m[0].length);
}

/**
 * The file text of an item plus one new activity line. `previous` is the file as it was on disk: its
 * activity section is kept byte for byte (append-only), whatever a person wrote there.
 */
export function formatItem(item: WorkItem, newLine: string, previous?: string): string {
  const kept = previous === undefined ? null : activitySection(previous);
  const data: Record<string, unknown> = {
    kind: item.kind,
    title: item.title,
    status: item.status,
    assignee: item.assignee ?? undefined,
    labels: item.labels,
    estimate: item.estimate ?? undefined,
    priority: item.priority ?? undefined,
    rank: item.rank,
    fields: item.fields,
    archived: item.archived,
    parent: item.parent ?? undefined,
    created: item.created ?? undefined,
    updated: item.updated ?? undefined,
  };
  const body = item.body ? `\n${item.body}\n` : '\n';
  const section = kept === null ? '\n\n' : kept.replace(/\s*$/, '\n');
  return formatFrontmatter(data, `${body}\n${ACTIVITY_HEADING}${section}- ${newLine}\n`);
}

/** `person` or `agent reviewer (run run-...)`: who a line is attributed to. */
export function describeActor(actor: Actor): string {
  if (actor.type === 'person') return 'person';
  return `agent ${actor.agent ?? 'assistant'}${actor.runId ? ` (run ${actor.runId})` : ''}`;
}

/** One activity line: UTC time to the second, who, what. Newlines in `what` are flattened. */
export function activityLine(actor: Actor, what: string, at = new Date()): string {
  return `${at.toISOString().replace(/\.\d{3}Z$/, 'Z')} ${describeActor(actor)}: ${what.replace(/\s*\r?\n\s*/g, ' ').trim()}`;
}
