/**
 * Workflows over HTTP (seed 000 §4.1, §4.4, §4.5, §4.6): documents, runs, resume, gates, the cron
 * preview and webhooks. Thin adapters over the service; the tools use the same functions.
 */
import { noBody, route } from '../../http/schemas.js';
import type { FastifyInstance } from 'fastify';
import { badRequest, notFound } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { cronPreviewSchema, gateResolveSchema, okSchema, validationResultSchema, workflowDocumentSchema } from './schemas.js';
import type { WorkflowsService } from './service.js';
import { SaveRefused } from './store.js';
import { reviewSummary } from './review.js';
import type { Provenance } from '../../kernel/provenance.js';

/** Who made it, as a client shows it: the rule snapshot stays in the engine. */
const authorView = (p: Provenance) => (p.by === 'person' ? { by: 'person' } : { by: 'model', runId: p.runId, sessionId: p.sessionId, mode: p.mode, at: p.at });

const tag = 'workflows';
const idParams = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;
const anyObject = { type: 'object', additionalProperties: true } as const;

export function workflowsRoutes(app: FastifyInstance, wf: WorkflowsService): void {
  app.get(
    '/api/workflows',
    { schema: route(tag, 'Every workflow with its author, its triggers (active, a cron trigger\'s next fire) and its last run; a file the engine rejects carries its error', { response: { 200: { type: 'array', items: anyObject } } }) },
    async () => wf.listing().map((w) => ({ ...w, author: authorView(wf.store.authorOf(w.id)) })),
  );

  app.get<{ Params: { id: string } }>('/api/workflows/:id', { schema: route(tag, 'One workflow document (or its error)', { params: idParams, response: { 200: anyObject } }) }, async (req) => {
    const e = wf.store.entry(req.params.id);
    if (!e) throw notFound(`no workflow "${req.params.id}"; GET /api/workflows lists them`);
    const author = authorView(wf.store.authorOf(e.id));
    return e.doc ? { ...e.doc, ...(e.warnings.length ? { warnings: e.warnings } : {}), author } : { id: e.id, group: e.group, error: e.error, author };
  });

  // A model's change to a person's enabled, triggered workflow waits here; PUT /api/workflows/<id> accepts it (or anything else the person saves).
  app.get<{ Params: { id: string } }>('/api/workflows/:id/proposal', { schema: route(tag, "A model's change held for review (404 when none)", { params: idParams, response: { 200: anyObject } }) }, async (req) => {
    const p = await wf.store.proposal(req.params.id);
    if (!p) throw notFound(`no change to workflow "${req.params.id}" waits for review`);
    return { workflowId: req.params.id, doc: p.doc, author: authorView(p.author), ...reviewSummary(p.doc) };
  });

  app.delete<{ Params: { id: string } }>('/api/workflows/:id/proposal', { schema: route(tag, "Dismisses a model's change held for review", { params: idParams, response: { 200: okSchema } }) }, async (req) => {
    if (!(await wf.store.dismissProposal(req.params.id))) throw notFound(`no change to workflow "${req.params.id}" waits for review`);
    return { ok: true };
  });

  app.put<{ Params: { id: string }; Body: unknown }>(
    '/api/workflows/:id',
    { schema: route(tag, 'Saves a workflow (formatVersion 2, id equal to the URL); 400 with the fix list', { params: idParams, body: workflowDocumentSchema, response: { 200: anyObject } }) },
    async (req, reply) => {
      try {
        const { doc, warnings } = await wf.store.save(req.params.id, req.body);
        return { ok: true, id: doc.id, nodes: doc.nodes.length, warnings: [...warnings, ...(await wf.unattendedWarnings(doc))] };
      } catch (err) {
        if (err instanceof SaveRefused) return reply.code(400).send({ error: err.message, errors: err.result.errors, warnings: err.result.warnings });
        throw err;
      }
    },
  );

  app.post<{ Body: unknown }>('/api/workflows/validate', { schema: route(tag, 'Validates a workflow document without saving it', { body: workflowDocumentSchema, response: { 200: validationResultSchema } }) }, async (req) => {
    const { doc: _doc, ...result } = wf.store.validate(req.body);
    return result;
  });

  app.delete<{ Params: { id: string } }>('/api/workflows/:id', { schema: route(tag, 'Deletes a workflow', { params: idParams, response: { 200: okSchema } }) }, async (req) => {
    await wf.store.remove(req.params.id);
    return { ok: true };
  });

  app.put<{ Params: { id: string }; Body: { group: string | null } }>(
    '/api/workflows/:id/group',
    {
      schema: route(tag, 'Moves a workflow to a group (also for a rejected document)', {
        params: idParams,
        body: { type: 'object', properties: { group: { type: ['string', 'null'] } }, required: ['group'], additionalProperties: false },
        response: { 200: okSchema },
      }),
    },
    async (req) => {
      await wf.store.setGroup(req.params.id, req.body.group);
      return { ok: true };
    },
  );

  app.get('/api/workflow-node-types', { schema: route(tag, 'Every node type with its config schema, branches and an example', { response: { 200: { type: 'array', items: anyObject } } }) }, async () => wf.nodeTypes());

  app.post<{ Params: { workflowId: string }; Body: { payload?: unknown } | undefined }>(
    '/api/runs/:workflowId',
    {
      // A POST without a body is a run without a payload.
      preValidation: (req, _reply, done) => {
        if (req.body === undefined || req.body === null) req.body = {};
        done();
      },
      schema: route(tag, 'Starts a manual run (202); 404 unknown, 400 rejected, 409 running, disabled or paused', {
        params: { type: 'object', properties: { workflowId: { type: 'string' } }, required: ['workflowId'] },
        body: { type: 'object', properties: { payload: { description: 'a string, or an object {{trigger.key}} reaches into' } }, additionalProperties: false },
        response: { 202: { type: 'object', properties: { ok: { type: 'boolean' }, runId: { type: 'string' } }, required: ['ok'] } },
      }),
    },
    async (req, reply) => {
      const runId = await wf.start({ workflowId: req.params.workflowId, payload: req.body?.payload, source: 'manual', attended: true });
      return reply.code(202).send({ ok: true, runId });
    },
  );

  app.post<{ Params: { runId: string } }>(
    '/api/runs/:runId/resume',
    {
      schema: route(tag, 'Resumes an interrupted workflow run under the same id (202); 409 when running, stopped or ended', {
        params: { type: 'object', properties: { runId: { type: 'string' } }, required: ['runId'] },
        body: noBody,
        response: {
          202: {
            type: 'object',
            properties: {
              ok: { type: 'boolean' },
              runId: { type: 'string' },
              workflowId: { type: 'string' },
              restored: { type: 'array', items: { type: 'string' } },
              rerun: { type: 'array', items: { type: 'string' } },
              lossy: { type: 'array', items: { type: 'string' } },
              steps: { type: 'number' },
            },
            required: ['ok', 'runId', 'workflowId', 'restored', 'rerun', 'lossy', 'steps'],
          },
        },
      }),
    },
    async (req, reply) => reply.code(202).send(await wf.resume(req.params.runId)),
  );

  app.get(
    '/api/gates',
    {
      schema: route(tag, 'Pending and orphaned gates as keys <runId>:<nodeId>, with details', {
        response: { 200: { type: 'object', properties: { pending: { type: 'array', items: { type: 'string' } }, orphaned: { type: 'array', items: { type: 'string' } }, gates: { type: 'array', items: anyObject } }, required: ['pending', 'orphaned'] } },
      }),
    },
    async () => wf.gates.list(),
  );

  app.post<{ Body: { runId: string; nodeId: string; approved: boolean; note?: string } }>(
    '/api/gates/resolve',
    { schema: route(tag, 'Approves or rejects a pending gate; 404 when not pending', { body: gateResolveSchema, response: { 200: okSchema } }) },
    async (req) => {
      await wf.gates.resolve(req.body);
      return { ok: true };
    },
  );

  app.post<{ Body: { expr: unknown; timezone?: string } }>(
    '/api/cron/preview',
    {
      schema: route(tag, 'The next three fires of a cron expression (UTC in next, wall-clock times of the zone in nextLocal); a bad one is ok:false with 200', {
        body: cronPreviewSchema,
        response: {
          200: {
            type: 'object',
            properties: { ok: { type: 'boolean' }, next: { type: 'array', items: { type: 'string' } }, nextLocal: { type: 'array', items: { type: 'string' } }, timezone: { type: 'string' }, description: { type: 'string' }, error: { type: 'string' } },
            required: ['ok', 'next', 'description'],
          },
        },
      }),
    },
    async (req) => wf.cronPreview(req.body.expr, req.body.timezone),
  );

  // Webhooks take any body: their own parser keeps the raw bytes so only the first 8 KB are read as the payload.
  void app.register(async (hooks) => {
    hooks.removeAllContentTypeParsers();
    hooks.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    hooks.post<{ Params: { '*': string }; Querystring: { secret?: string } }>(
      '/hooks/*',
      {
        schema: route(tag, 'Fires a workflow\'s webhook trigger (202); secret in x-engine-secret or ?secret=', {
          querystring: { type: 'object', properties: { secret: { type: 'string' } }, additionalProperties: true },
          response: { 202: { type: 'object', properties: { ok: { type: 'boolean' }, runId: { type: 'string' } }, required: ['ok'] } },
        }),
      },
      async (req, reply) => {
        const parts = (req.params['*'] ?? '').split('/').filter((p) => p !== '');
        if (parts.length < 1 || parts.length > 2) throw notFound('a webhook URL is /hooks/<workflowId> or /hooks/<workflowId>/<nodeId>');
        const [workflowId, nodeId] = parts.map((p) => decodeURIComponent(p));
        const header = req.headers['x-engine-secret'];
        const secret = typeof header === 'string' ? header : typeof req.query.secret === 'string' ? req.query.secret : undefined;
        const payload = webhookPayload(req.body, String(req.headers['content-type'] ?? ''));
        const runId = await wf.webhook(workflowId, nodeId, secret, payload);
        return reply.code(202).send({ ok: true, runId });
      },
    );
  });
}

/** The first 8 KB of the body; a JSON content type parsed into a real value. */
export function webhookPayload(body: unknown, contentType: string): unknown {
  const buf = Buffer.isBuffer(body) ? body : typeof body === 'string' ? Buffer.from(body) : Buffer.alloc(0);
  if (!buf.length) return {};
  const text = buf.subarray(0, LIMITS.webhookPayloadBytes).toString('utf8');
  if (/[/+]json\b/i.test(contentType)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw badRequest(`the body is sent as JSON but its first ${LIMITS.webhookPayloadBytes} bytes do not parse; send valid JSON of at most ${LIMITS.webhookPayloadBytes} bytes, or another content type`);
    }
  }
  return text;
}
