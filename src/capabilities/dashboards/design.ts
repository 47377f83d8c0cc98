/**
 * POST /api/dashboards/design {description, id?}: one model pass answers a definition as JSON; it
 * goes through the same check as PUT, and when refused the model gets one more pass with the check's
 * sentences. The result is saved like a PUT (an existing `id` is changed in place).
 */
import { badRequest, EngineError } from '../../kernel/errors.js';
import type { DefinitionContext } from './definition.js';
import { definitionProblems, DASHBOARD_ID } from './definition.js';
import { designSystem } from './prompts.js';
import type { DashboardStore } from './store.js';
import type { DashboardDefinition } from './types.js';

export interface DesignDeps {
  modelPass: (req: { system: string; prompt: string; source?: string; title?: string }) => Promise<string>;
  context: () => Promise<DefinitionContext>;
  store: DashboardStore;
  save: (id: string, body: unknown) => Promise<{ ok: true; id: string; definition: DashboardDefinition }>;
}

export async function designDefinition(body: unknown, deps: DesignDeps): Promise<{ ok: true; id: string; definition: DashboardDefinition }> {
  const b = (body ?? {}) as { description?: unknown; id?: unknown };
  if (typeof b.description !== 'string' || !b.description.trim()) throw badRequest('description is required: say in words what the dashboard should show');
  if (b.id !== undefined && (typeof b.id !== 'string' || !DASHBOARD_ID.test(b.id))) throw badRequest('id must be a dashboard id (lower-case letters, digits, - or _)');
  const existing = typeof b.id === 'string' ? deps.store.get(b.id)?.definition : undefined;
  const ctx = await deps.context();
  const system = designSystem([...ctx.types.values()], ctx.toolNames ?? [], ctx.agentNames ?? []);
  let prompt = existing ? `Change this dashboard as asked.\nNow: ${JSON.stringify(existing)}\nAsked: ${b.description}` : b.description;
  let problems: string[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    const answer = await deps.modelPass({ system, prompt, source: 'dashboard', title: `design dashboard${typeof b.id === 'string' ? ` ${b.id}` : ''}` });
    const parsed = parseJsonAnswer(answer);
    problems = parsed.error ? [parsed.error] : definitionProblems(parsed.value, ctx);
    if (!problems.length) {
      const id = typeof b.id === 'string' ? b.id : freeId(deps.store, (parsed.value as DashboardDefinition).name);
      return deps.save(id, parsed.value);
    }
    prompt = `${prompt}\n\nYour answer was refused:\n${problems.map((p) => `- ${p}`).join('\n')}\nAnswer the corrected JSON object only.`;
  }
  throw new EngineError(502, `the model's dashboard definition was refused twice; nothing was saved: ${problems.join('; ')}`);
}

/** The JSON object of an answer (bare, or in a ```json fence). */
function parseJsonAnswer(text: string): { value?: unknown; error?: string } {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = (fenced ? fenced[1] : text).trim();
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0 || end < start) return { error: 'the answer holds no JSON object; answer with the definition as one JSON object' };
  try {
    return { value: JSON.parse(body.slice(start, end + 1)) };
  } catch (err) {
    return { error: `the answer is not valid JSON (${(err as Error).message.split('\n')[0]}); answer with one JSON object` };
  }
}

/** A new id from the name ("Sales this week" -> sales-this-week, then -2, -3 ...). */
function freeId(store: DashboardStore, name: string): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 56) || 'dashboard';
  let id = base === 'design' ? 'design-1' : base;
  for (let n = 2; store.get(id); n++) id = `${base}-${n}`;
  return id;
}
