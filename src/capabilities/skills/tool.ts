/**
 * `load_skill` (seed 001 §4.4): by name (no permission) from the skill tiers, or by URL, fetched fresh
 * on every call through the URL floor (each redirect hop and the connection re-checked), asking permission per host as `load_skill(<host>)`. A successful
 * load is exempt from the result clip: a skill cut in half is worse than none.
 */
import { badRequest } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { authority, type Authority } from '../../kernel/provenance.js';
import { defineTool } from '../../tools/types.js';
import type { SkillsService } from './service.js';

/**
 * One GET through the URL floor (every hop and the connection itself), bounded in time and bytes;
 * supplied by the composition root from the web capability. Throws a sentence when the floor refuses.
 */
export type FetchSkill = (url: string, opts: { signal: AbortSignal; maxBytes: number }) => Promise<{ url: string; status: number; body: Buffer; truncated: boolean }>;

export interface LoadSkillDeps {
  skills: SkillsService;
  fetch: FetchSkill;
  /** The skills an agent may load by name (its `skills:`); undefined means all. */
  allowedSkills?: (agent: string | undefined) => Promise<string[] | undefined>;
  /** The run follows a skill a model wrote: its later calls are gated as that model was (the permission gate's takeOn). */
  takeOn?: (runId: string, authority: Authority[]) => void;
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest(`load_skill: "${raw}" is not a URL; give an http(s) URL of a raw SKILL.md, or a skill name`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest(`load_skill: only http and https URLs load (got ${url.protocol})`);
  return url;
}

async function fetchSkill(url: URL, get: FetchSkill, signal: AbortSignal): Promise<string> {
  const res = await get(url.href, { signal, maxBytes: LIMITS.skillUrlBytes });
  if (res.status < 200 || res.status >= 300) throw badRequest(`load_skill: ${res.url} answered ${res.status}; check the URL points at a raw SKILL.md`);
  // A skill cut short would be followed as if whole: refuse instead.
  if (res.truncated) throw badRequest(`load_skill: ${res.url} is larger than ${LIMITS.skillUrlBytes} bytes; a skill may be at most that`);
  return res.body.toString('utf8');
}

export function loadSkillTool(deps: LoadSkillDeps) {
  return defineTool<{ name?: string; url?: string }>({
    name: 'load_skill',
    group: 'meta',
    description:
      'Loads a skill\'s full instructions. Give `name` (as listed under Skills in your prompt), or `url` (a raw SKILL.md over http(s), fetched fresh each call; asks the user per host). Follow the instructions it returns.',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'a skill name from your prompt' },
        url: { type: 'string', description: 'an http(s) URL of a raw SKILL.md' },
      },
    },
    permission: (args) => {
      if (args.url && !args.name) {
        const url = parseUrl(args.url);
        return { class: 'unknown', key: `load_skill(${url.host})`, display: `load a skill from ${url.href}` };
      }
      return { class: 'other', key: 'load_skill' };
    },
    async run(args, ctx) {
      if (!!args.name === !!args.url) throw badRequest('load_skill: give exactly one of name or url');
      if (args.url) {
        const text = await fetchSkill(parseUrl(args.url), deps.fetch, ctx.signal);
        return { text: `# Skill from ${args.url}\n\n${text}`, unclipped: true };
      }
      const name = args.name!;
      const allowed = await deps.allowedSkills?.(ctx.agent);
      if (allowed && !allowed.includes(name)) {
        throw badRequest(`load_skill: skill "${name}" is not among this agent's skills (${allowed.join(', ') || 'none'}); load one of those`);
      }
      const skill = await deps.skills.get(name);
      if (ctx.runId) deps.takeOn?.(ctx.runId, authority('skill', skill.name, deps.skills.authorOf(skill)));
      return { text: `# Skill: ${skill.name}\n(${skill.tier} tier; its files live in ${skill.location})\n\n${skill.body}`, unclipped: true };
    },
  });
}
