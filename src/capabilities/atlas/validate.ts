/** The atlas definition's checks: one sentence per problem, nothing saved while any remains. */
import type { AtlasDefinition } from './types.js';

const isStr = (v: unknown): v is string => typeof v === 'string';

export function checkDefinition(id: string, body: unknown): { def?: AtlasDefinition; problems: string[] } {
  const problems: string[] = [];
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { problems: ['send {name, scope[], views[], flows, prompt, icon?, description?, agent?}'] };
  const b = body as Record<string, unknown>;
  if (!isStr(b.name) || !b.name.trim()) problems.push('name must be a non-empty string');
  for (const k of ['icon', 'description', 'agent'] as const) if (b[k] !== undefined && b[k] !== null && !isStr(b[k])) problems.push(`${k} must be a string when given`);
  if (!Array.isArray(b.scope) || !b.scope.length || !b.scope.every(isStr)) problems.push('scope must be a non-empty array of folders, such as ["src"] or ["<mount>/lib"]; "" is the whole workspace');
  const views = b.views ?? [];
  if (!Array.isArray(views)) problems.push('views must be an array of {id, kind: "graph" or "flow", title, guide?}');
  else
    views.forEach((v, i) => {
      const o = v as Record<string, unknown>;
      if (!o || typeof o !== 'object') return problems.push(`views[${i}] must be an object {id, kind, title, guide?}`);
      if (!isStr(o.id) || !/^[\w-]{1,40}$/.test(o.id)) problems.push(`views[${i}].id must be letters, digits, _ or - (at most 40)`);
      if (o.kind !== 'graph' && o.kind !== 'flow') problems.push(`views[${i}].kind must be "graph" or "flow"`);
      if (!isStr(o.title) || !o.title.trim()) problems.push(`views[${i}].title must be a non-empty string`);
    });
  const flows = b.flows ?? [];
  if (!Array.isArray(flows) || !flows.every(isStr)) problems.push('flows must be an array of sentences naming what to explain, such as ["what happens on a chat turn"]');
  if (!isStr(b.prompt)) problems.push('prompt must be a string: what the survey should pay attention to ("" for none)');
  const known = new Set(['name', 'icon', 'description', 'scope', 'agent', 'views', 'flows', 'prompt', 'id', 'standard']);
  for (const k of Object.keys(b)) if (!known.has(k)) problems.push(`unknown field "${k}"; an atlas has name, icon, description, scope, agent, views, flows, prompt`);
  if (b.id !== undefined && b.id !== id) problems.push(`id "${String(b.id)}" does not match the URL's "${id}"`);
  if (problems.length) return { problems };
  const def: AtlasDefinition = {
    id,
    name: (b.name as string).trim(),
    ...(isStr(b.icon) ? { icon: b.icon } : {}),
    ...(isStr(b.description) ? { description: b.description } : {}),
    scope: (b.scope as string[]).map((s) => s.replace(/^\/+|\/+$/g, '')),
    ...(isStr(b.agent) && b.agent ? { agent: b.agent } : {}),
    views: (views as AtlasDefinition['views']).map((v) => ({ id: v.id, kind: v.kind, title: v.title, ...(v.guide ? { guide: String(v.guide) } : {}) })),
    flows: flows as string[],
    prompt: b.prompt as string,
  };
  return { def, problems };
}
