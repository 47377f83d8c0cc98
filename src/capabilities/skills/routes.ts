import type { FastifyInstance } from 'fastify';
import { arr, bool, obj, ok, oneOf, openObj, params, route, str } from '../../http/schemas.js';
import type { SkillsService } from './service.js';

const tag = 'skills';
const name = params({ name: 'the skill name (its folder name)' });
const tier = oneOf('workspace', 'user');
const skillsConfig = obj({ includeUserTier: bool('offer the read-only user tier (~/<skillsDir>/skills) to agents'), skillsDir: str('one folder name, e.g. ".claude"') });

/** Skills over HTTP (seed 000 §4.8): the workspace tier is editable, the user tier read-only. */
export function skillsRoutes(app: FastifyInstance, skills: SkillsService): void {
  app.get(
    '/api/skills',
    { schema: route(tag, 'the skills of both tiers', { response: { 200: obj({ skills: arr(openObj('a skill: {name, description, tier, ...}')), includeUserTier: bool() }, ['skills', 'includeUserTier']) } }) },
    async () => skills.list(),
  );
  app.get<{ Params: { name: string } }>(
    '/api/skills/:name',
    { schema: route(tag, 'one skill with its instructions', { params: name, response: { 200: obj({ name: str(), description: str(), body: str(), tier }, ['name', 'description', 'body', 'tier']) } }) },
    async (req) => {
      const s = await skills.get(req.params.name, { anyTier: true });
      return { name: s.name, description: s.description, body: s.body, tier: s.tier };
    },
  );
  app.put<{ Params: { name: string } }>(
    '/api/skills/:name',
    {
      schema: route(tag, 'create or replace a workspace skill (SKILL.md)', {
        params: name,
        body: obj({ description: str('what the skill does and when to load it (agents choose by it)'), body: str('the instructions in markdown') }, ['description', 'body']),
        response: { 200: ok({ name: str(), description: str(), tier }) },
      }),
    },
    async (req) => {
      const s = await skills.save(req.params.name, req.body);
      return { ok: true, name: s.name, description: s.description, tier: s.tier };
    },
  );
  app.delete<{ Params: { name: string } }>('/api/skills/:name', { schema: route(tag, 'delete a workspace skill', { params: name, response: { 200: ok() } }) }, async (req) => {
    await skills.remove(req.params.name);
    return { ok: true };
  });
  app.get('/api/skills-config', { schema: route(tag, 'where skills are read from', { response: { 200: skillsConfig } }) }, async () => skills.config());
  app.put(
    '/api/skills-config',
    { schema: route(tag, 'change where skills are read from', { body: skillsConfig, response: { 200: ok(skillsConfig.properties as Record<string, never>) } }) },
    async (req) => ({ ok: true, ...(await skills.setConfig(req.body)) }),
  );
}
