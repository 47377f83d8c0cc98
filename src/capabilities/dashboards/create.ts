/**
 * The definition publish_dashboard makes for a dashboard that does not exist yet: one slot per
 * widget of the call (its id and title), columns enough for the widest, and a prompt that names the
 * slots, so a later Build knows what the page shows. The service checks the widgets against it and
 * saves it only when at least one is accepted.
 */
import type { DashboardDefinition, Slot } from './types.js';

const SLOT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function definitionFromPublish(id: string, args: { widgets: unknown; title?: string; subtitle?: string }): DashboardDefinition {
  const slots: Slot[] = [];
  let widest = 2;
  for (const raw of Array.isArray(args.widgets) ? args.widgets : []) {
    if (!raw || typeof raw !== 'object') continue;
    const w = raw as Record<string, unknown>;
    if (typeof w.id !== 'string' || !SLOT_ID.test(w.id) || slots.some((s) => s.id === w.id)) continue;
    slots.push({ id: w.id, title: typeof w.title === 'string' && w.title.trim() ? w.title.trim().slice(0, 200) : w.id });
    if (Number.isInteger(w.span)) widest = Math.max(widest, Math.min(12, w.span as number));
  }
  const name = args.title?.trim() ? args.title.trim().slice(0, 100) : id;
  const shows = slots.map((s) => s.title).join(', ');
  return {
    name,
    ...(args.subtitle?.trim() ? { description: args.subtitle.trim() } : {}),
    layout: widest,
    slots,
    prompt: `Keep this page up to date: ${shows || name}.${args.subtitle?.trim() ? ` ${args.subtitle.trim()}` : ''}`,
  };
}
