import type { FastifyInstance } from 'fastify';
import type { SkillsService } from './service.js';

/** Skills over HTTP (seed 000 §4.8): the workspace tier is editable, the user tier read-only. */
export function skillsRoutes(app: FastifyInstance, skills: SkillsService): void {
  app.get('/api/skills', async () => skills.list());
  app.get<{ Params: { name: string } }>('/api/skills/:name', async (req) => {
    const s = await skills.get(req.params.name, { anyTier: true });
    return { name: s.name, description: s.description, body: s.body, tier: s.tier };
  });
  app.put<{ Params: { name: string } }>('/api/skills/:name', async (req) => {
    const s = await skills.save(req.params.name, req.body);
    return { ok: true, name: s.name, description: s.description, tier: s.tier };
  });
  app.delete<{ Params: { name: string } }>('/api/skills/:name', async (req) => {
    await skills.remove(req.params.name);
    return { ok: true };
  });
  app.get('/api/skills-config', async () => skills.config());
  app.put('/api/skills-config', async (req) => ({ ok: true, ...(await skills.setConfig(req.body)) }));
}
