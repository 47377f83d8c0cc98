import type { FastifyInstance } from 'fastify';
import type { SettingsServiceImpl } from './service.js';

/** GET/PUT /api/settings; PUT merges a partial object over the current settings. */
export function settingsRoutes(app: FastifyInstance, settings: SettingsServiceImpl): void {
  app.get('/api/settings', async () => settings.get());
  app.put('/api/settings', async (req) => settings.update(req.body));
}
