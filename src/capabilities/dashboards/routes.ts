/**
 * Dashboards and widgets over HTTP (seed 000 §4.11), thin over the service. Definitions are checked
 * by the service (every problem its own sentence), so their bodies are open objects here.
 */
import type { FastifyInstance } from 'fastify';
import { arr, bool, int, noBody, obj, ok, openObj, params, query, route, str } from '../../http/schemas.js';
import { sendFramedPage } from '../../http/framing.js';
import { renderPage } from './render.js';
import type { DashboardsService } from './service.js';

const tag = 'dashboards';
const id = params({ id: 'the dashboard id (lower-case letters, digits, - or _)' });
const definition = openObj('{name, icon?, description?, refresh?, paused?, agent?, layout, tools?, widgets?, slots: [{id, title, hint?, type?, span?}], prompt} (docs/dashboards.md)');
const documentSchema = openObj('{title, subtitle?, builtAt, runId, widgets: [{id, type, title?, span?, summary?, data, sources, status?, error?, runId?}]}');
const build = openObj('how the last build ended: {runId, status, at, error?}');
const summary = openObj('a dashboard in the list', { id: str(), name: str(), building: bool(), builtAt: str(), erroredWidgets: int(), lastBuild: build, error: str('why the file on disk cannot be used') });

export function dashboardsRoutes(app: FastifyInstance, dashboards: DashboardsService): void {
  app.get('/api/dashboards', { schema: route(tag, 'every dashboard with its last build, whether it is building and its errored widgets', { response: { 200: obj({ dashboards: arr(summary) }, ['dashboards']) } }) }, async () => dashboards.list());
  app.post(
    '/api/dashboards/design',
    { schema: route(tag, 'a model designs a definition from words (checked, one retry), saves and returns it', { body: obj({ description: str('what the page should show'), id: str('an existing dashboard to change, or the id of the new one') }, ['description']), response: { 200: ok({ id: str(), definition }) } }) },
    async (req) => dashboards.design(req.body),
  );
  app.get<{ Params: { id: string } }>(
    '/api/dashboards/:id',
    { schema: route(tag, 'the definition, the latest document and whether it is building', { params: id, response: { 200: openObj('{id, definition, document, building, runId?, lastBuild, error?}', { definition, document: documentSchema, lastBuild: build }) } }) },
    async (req) => dashboards.get(req.params.id),
  );
  app.get<{ Params: { id: string } }>(
    '/api/dashboards/:id/doc',
    {
      schema: route(tag, 'the published document; with Accept: text/html, the page itself (self-contained, charts as SVG)', {
        params: id,
        response: { 200: openObj('{document, lastBuild, building}, or an HTML page', { document: documentSchema, lastBuild: build, building: bool() }) },
      }),
    },
    async (req, reply) => {
      const { document, lastBuild, building } = dashboards.doc(req.params.id);
      if (!/text\/html/.test(String(req.headers.accept ?? ''))) return { document, lastBuild, building };
      const { definition } = dashboards.get(req.params.id);
      const html = await renderPage({ id: req.params.id, definition: definition!, document, lastBuild, types: dashboards.catalog.types() });
      // The page's own policy (render.ts says it in a <meta> too), and the workbench frames it: only its origin may.
      return sendFramedPage(reply, html);
    },
  );
  app.get<{ Params: { id: string; ref: string }; Querystring: { run?: string } }>(
    '/api/dashboards/:id/source/:ref',
    {
      schema: route(tag, 'the whole archived text behind a widget source (text/plain)', {
        params: params({ id: 'the dashboard id', ref: 'a source ref such as t1' }),
        querystring: query({ run: "the run that archived it (a widget's runId); default: the page's build" }),
        response: { 200: str('the archived tool result', { contentMediaType: 'text/plain' }) },
      }),
    },
    async (req, reply) => reply.type('text/plain; charset=utf-8').send(await dashboards.source(req.params.id, req.params.ref, req.query.run)),
  );
  app.post<{ Params: { id: string } }>(
    '/api/dashboards/:id/run',
    { schema: route(tag, 'build the dashboard now (a run; 409 while one is building)', { params: id, body: noBody, response: { 202: ok({ runId: str() }) } }) },
    async (req, reply) => reply.code(202).send(await dashboards.startBuild(req.params.id)),
  );
  app.put<{ Params: { id: string } }>(
    '/api/dashboards/:id',
    { schema: route(tag, 'create or replace a definition (every problem is named; nothing is saved while one remains)', { params: id, body: definition, response: { 200: ok({ id: str(), definition }) } }) },
    async (req) => dashboards.save(req.params.id, req.body),
  );
  app.delete<{ Params: { id: string } }>('/api/dashboards/:id', { schema: route(tag, 'delete a dashboard, its page and its sources', { params: id, response: { 200: ok() } }) }, async (req) => {
    await dashboards.remove(req.params.id);
    return { ok: true };
  });

  const widgetType = openObj('{name, renderer, label?, span?, description, builtIn, shape, error?}');
  app.get('/api/widgets', { schema: route(tag, 'the widget catalog and the renderer names', { response: { 200: obj({ widgets: arr(widgetType), renderers: arr(str()) }, ['widgets', 'renderers']) } }) }, async () => dashboards.catalog.list());
  app.put<{ Params: { name: string } }>(
    '/api/widgets/:name',
    { schema: route(tag, 'add or edit a widget type on a known renderer', { params: params({ name: 'the widget type name' }), body: openObj('{renderer, label?, span?, description}'), response: { 200: ok({ widget: widgetType }) } }) },
    async (req) => ({ ok: true, widget: await dashboards.putWidget(req.params.name, req.body) }),
  );
  app.delete<{ Params: { name: string } }>('/api/widgets/:name', { schema: route(tag, 'delete a custom widget type (built-ins refuse)', { params: params({ name: 'the widget type name' }), response: { 200: ok() } }) }, async (req) => {
    await dashboards.catalog.remove(req.params.name);
    return { ok: true };
  });
}
