import type { FastifyInstance } from 'fastify';
import { bool, int, num, obj, oneOf, route } from '../../http/schemas.js';
import { LIMITS } from '../../kernel/limits.js';
import type { SettingsServiceImpl } from './service.js';

const fields = {
  chatMaxTurns: int('most model steps a chat turn may take', { minimum: 1, maximum: LIMITS.chatMaxTurnsMax }),
  compactFraction: num('share of the context window at which older turns are summarised'),
  toolBudgetShare: num('share of the context window that tool definitions may take in one request; past it, a core set and tool_search are sent'),
  completions: obj({ enabled: bool('editor ghost-text completion on or off'), provider: { type: ['string', 'null'], description: 'a provider name; null for the default' } }),
  sandbox: obj({
    mode: oneOf('workspace-write', 'read-only', 'off'),
    network: bool('whether sandboxed commands may use the network (default false)'),
    whenUnavailable: oneOf('ask', 'refuse', 'run'),
  }),
  push: obj({ subject: { type: ['string', 'null'], description: 'the VAPID subject push services may contact: an https: URL or a mailto: address on the public internet; null until set (docs/push.md)' } }),
};
const settings = obj(fields, ['chatMaxTurns', 'compactFraction', 'toolBudgetShare', 'completions'], { open: true });

/** GET/PUT /api/settings; PUT merges a partial object over the current settings. */
export function settingsRoutes(app: FastifyInstance, service: SettingsServiceImpl): void {
  app.get('/api/settings', { schema: route('settings', 'the app settings', { response: { 200: settings } }) }, async () => service.get());
  app.put(
    '/api/settings',
    { schema: route('settings', 'change some settings (the fields sent are merged over the current ones)', { body: obj(fields), response: { 200: settings } }) },
    async (req) => service.update(req.body),
  );
}
