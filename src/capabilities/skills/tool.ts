/**
 * `load_skill` (seed 001 §4.4): by name (no permission) from the skill tiers, or by URL, fetched fresh
 * on every call after the URL floor, asking permission per host as `load_skill(<host>)`. A successful
 * load is exempt from the result clip: a skill cut in half is worse than none.
 */
import { badRequest } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { defineTool } from '../../tools/types.js';
import type { SkillsService } from './service.js';

/** Throws a sentence when a URL may not be fetched (loopback, private ranges ...). */
export type UrlFloor = (url: URL) => void | Promise<void>;

export interface LoadSkillDeps {
  skills: SkillsService;
  /** The URL floor; applied to the first URL and to every redirect hop. */
  floor: () => UrlFloor;
  /** The skills an agent may load by name (its `skills:`); undefined means all. */
  allowedSkills?: (agent: string | undefined) => Promise<string[] | undefined>;
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

async function fetchSkill(start: URL, floor: UrlFloor, signal: AbortSignal): Promise<string> {
  let url = start;
  const timeout = AbortSignal.timeout(LIMITS.webFetchTimeoutMs);
  const both = AbortSignal.any([signal, timeout]);
  for (let hop = 0; ; hop++) {
    await floor(url);
    let res: Response;
    try {
      res = await fetch(url, { redirect: 'manual', signal: both, headers: { accept: 'text/markdown, text/plain;q=0.9, */*;q=0.5' } });
    } catch (err) {
      if (timeout.aborted) throw badRequest(`load_skill: ${url.host} did not answer within ${LIMITS.webFetchTimeoutMs / 1000} s`);
      throw badRequest(`load_skill: fetching ${url.href} failed (${(err as Error).message})`);
    }
    if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
      if (hop >= LIMITS.skillUrlRedirects) throw badRequest(`load_skill: more than ${LIMITS.skillUrlRedirects} redirects from ${start.href}`);
      url = new URL(res.headers.get('location')!, url);
      await res.body?.cancel();
      continue;
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw badRequest(`load_skill: ${url.href} answered ${res.status}; check the URL points at a raw SKILL.md`);
    }
    const declared = Number(res.headers.get('content-length') ?? 0);
    if (declared > LIMITS.skillUrlBytes) {
      await res.body?.cancel();
      throw badRequest(`load_skill: ${url.href} is ${declared} bytes; a skill may be at most ${LIMITS.skillUrlBytes} bytes`);
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.byteLength > LIMITS.skillUrlBytes) throw badRequest(`load_skill: ${url.href} is larger than ${LIMITS.skillUrlBytes} bytes; a skill may be at most that`);
    return new TextDecoder().decode(bytes);
  }
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
        const text = await fetchSkill(parseUrl(args.url), deps.floor(), ctx.signal);
        return { text: `# Skill from ${args.url}\n\n${text}`, unclipped: true };
      }
      const name = args.name!;
      const allowed = await deps.allowedSkills?.(ctx.agent);
      if (allowed && !allowed.includes(name)) {
        throw badRequest(`load_skill: skill "${name}" is not among this agent's skills (${allowed.join(', ') || 'none'}); load one of those`);
      }
      const skill = await deps.skills.get(name);
      return { text: `# Skill: ${skill.name}\n(${skill.tier} tier; its files live in ${skill.location})\n\n${skill.body}`, unclipped: true };
    },
  });
}
