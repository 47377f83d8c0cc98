/** The atlas routes (seed 000 §4.12; docs/atlas.md). */
import type { FastifyInstance } from 'fastify';
import { sendFramedPage } from '../../http/framing.js';
import { any, arr, bool, int, obj, ok, openObj, params, route, str } from '../../http/schemas.js';
import { renderAtlasPage } from './render.js';
import type { AtlasService } from './service.js';

const tag = 'atlas';
const idParam = params({ id: 'the atlas id' });
const doc = openObj('an atlas document: {id, title, scope, builtAt, kind, units, cards, views}');

export function atlasRoutes(app: FastifyInstance, atlas: AtlasService): void {
  app.get('/api/atlas', { schema: route(tag, 'every map with its last build, view and unit counts, staleness and live progress', { response: { 200: obj({ atlases: arr(openObj('an atlas summary')) }, ['atlases']) } }) }, () => atlas.list());
  app.post(
    '/api/atlas/standard',
    { schema: route(tag, 'the standard brief of a folder, from its code alone (no model); the same folder twice answers the existing map', { body: obj({ scope: str('a folder: "src", "<mount>/lib", "" for the workspace') }, ['scope']), response: { 200: obj({ id: str(), existing: bool(), stale: arr(str()), document: doc }, ['id', 'existing', 'stale', 'document']) } }) },
    (req) => atlas.standard(req.body),
  );
  app.post(
    '/api/atlas/design',
    { schema: route(tag, 'a model derives an atlas definition from words; id changes an existing one', { body: obj({ instruction: str(), description: str(), id: str() }), response: { 200: ok({ id: str('the atlas id'), definition: openObj('the saved definition') }) } }) },
    (req) => atlas.design(req.body),
  );
  app.get('/api/atlas/:id', { schema: route(tag, 'an atlas: its definition, document and stale units', { params: idParam, response: { 200: obj({ definition: openObj(), document: any('the document or null'), stale: arr(str()), building: bool() }, ['definition', 'document', 'stale', 'building']) } }) }, (req) => atlas.get((req.params as { id: string }).id));
  app.get('/api/atlas/:id/doc', { schema: route(tag, 'the document: JSON, or with Accept: text/html a self-contained page with the views drawn as SVG', { params: idParam, response: { 200: any('the document (JSON) or the page (text/html)') } }) }, async (req, reply) => {
    const id = (req.params as { id: string }).id;
    const document = await atlas.doc(id);
    if (/text\/html/.test(String(req.headers.accept ?? ''))) {
      // The workbench shows this page in a frame of its own; no other page may frame it.
      return sendFramedPage(reply, renderAtlasPage(document, await atlas.staleness(id)));
    }
    return document;
  });
  app.get('/api/atlas/:id/progress', { schema: route(tag, 'live build counts, cheap enough to poll every second', { params: idParam, response: { 200: obj({ phase: str(), files: int(), parsed: int(), units: int(), surveyed: int(), cards: int(), views: int(), building: bool() }) } }) }, (req) => atlas.progress((req.params as { id: string }).id));
  app.get('/api/atlas/:id/card/:unit', { schema: route(tag, 'one card, by unit id or content hash', { params: params({ id: 'the atlas id', unit: 'a unit id (URL-encoded folder) or a content hash' }), response: { 200: openObj('a card') } }) }, (req) => {
    const p = req.params as { id: string; unit: string };
    return atlas.card(p.id, p.unit);
  });
  app.get('/api/atlas/:id/source/:ref', { schema: route(tag, 'text/plain: the archived evidence behind a citation', { params: params({ id: 'the atlas id', ref: 'e1, e2 ...' }), response: { 200: str('the excerpt, with its path and line numbers') } }) }, async (req, reply) => {
    const p = req.params as { id: string; ref: string };
    return reply.type('text/plain; charset=utf-8').send(await atlas.source(p.id, p.ref));
  });
  app.post('/api/atlas/:id/run', { schema: route(tag, 'build the atlas (a survey for a defined atlas, a fresh brief for a standard one); 409 while building', { params: idParam, body: obj({}), response: { 202: ok({ runId: str('the build\'s run: GET /api/runs/<runId>/events') }) } }) }, async (req, reply) => reply.code(202).send(await atlas.run((req.params as { id: string }).id)));
  app.put('/api/atlas/:id', { schema: route(tag, 'save an atlas definition', { params: idParam, body: openObj('{name, icon?, description?, scope[], agent?, views[], flows, prompt}'), response: { 200: ok({ id: str('the atlas id'), definition: openObj() }) } }) }, (req) => atlas.put((req.params as { id: string }).id, req.body));
  app.delete('/api/atlas/:id', { schema: route(tag, 'delete an atlas, its document and its evidence', { params: idParam, response: { 200: ok() } }) }, (req) => atlas.remove((req.params as { id: string }).id));
}
