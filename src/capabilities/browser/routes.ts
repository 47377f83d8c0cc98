import type { FastifyInstance } from 'fastify';
import { bool, noBody, obj, route, str } from '../../http/schemas.js';
import type { BrowserService } from './service.js';

const tag = 'browser';

const statusSchema = obj(
  {
    connected: bool('whether the extension holds the /browser socket now'),
    token: str('the pairing token (the extension reads it from pairing.json in extensionPath; nobody types it)'),
    extensionPath: str('the folder to load in chrome://extensions with "Load unpacked"'),
    extensionId: str('the id Chrome gives that extension (pinned by the manifest key)'),
    origin: str('the only Origin /browser accepts'),
    client: obj({ version: str(), userAgent: str(), connectedAt: str(), lastSeenAt: str('the last frame the extension sent (a keep-alive every 20 s)') }, ['version', 'userAgent', 'connectedAt', 'lastSeenAt']),
  },
  ['connected', 'token', 'extensionPath', 'extensionId', 'origin'],
);

/** GET /api/browser and POST /api/browser/token/rotate (docs/browser.md). */
export function browserRoutes(app: FastifyInstance, browser: BrowserService): void {
  app.get('/api/browser', { schema: route(tag, 'connection status, the pairing token (minted on first read) and the folder to load as an unpacked extension', { response: { 200: statusSchema } }) }, () =>
    browser.status(),
  );
  app.post('/api/browser/token/rotate', { schema: route(tag, 'a new pairing token; the live extension is dropped and reconnects with it', { body: noBody, response: { 200: statusSchema } }) }, () =>
    browser.rotate(),
  );
}
