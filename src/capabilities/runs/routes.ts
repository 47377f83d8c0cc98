import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { noBody, arr, obj, ok, openObj, params, route } from '../../http/schemas.js';
import { notFound } from '../../kernel/errors.js';
import type { EventBatch, RunLedger } from '../../kernel/runs.js';

const tag = 'runs';
const runId = params({ runId: 'a run id, run-<epoch_ms>-<n>' });

/** Bytes of event lines gathered into one chunk of the streamed answer. */
const CHUNK = 64 * 1024;

/**
 * `{"events": [...]}` as a stream of chunks, built from the log's own lines as they are read: a run of
 * 100 000 events answers at the pace the client reads, holding one chunk, never the whole log. Each
 * line passes the exit mask here (the response hook masks whole string bodies, not streams).
 */
async function* eventsBody(batches: AsyncIterable<EventBatch>, mask: (json: string) => string): AsyncGenerator<string> {
  let chunk = '{"events":[';
  let first = true;
  for await (const { lines } of batches) {
    for (const line of lines) {
      chunk += (first ? '' : ',') + mask(line);
      first = false;
    }
    if (chunk.length >= CHUNK) {
      yield chunk;
      chunk = '';
    }
  }
  yield chunk + ']}';
}

/** The run ledger over HTTP: the last 100 runs (live overlaid), one run's full log (streamed), stop. */
export function runsRoutes(app: FastifyInstance, runs: RunLedger): void {
  app.get(
    '/api/runs',
    { schema: route(tag, 'the last 100 runs, live ones included', { response: { 200: obj({ runs: arr(openObj('a run: {runId, source, status, startedAt, endedAt?, usage, ...}')) }, ['runs']) } }) },
    async () => ({ runs: runs.list() }),
  );

  app.get<{ Params: { runId: string } }>(
    '/api/runs/:runId/events',
    { schema: route(tag, "one run's full event log", { params: runId, response: { 200: obj({ events: arr(openObj('an event: {kind, ts, seq, runId, ...}')) }, ['events']) } }) },
    async (req, reply) => {
      const events = await runs.readEvents(req.params.runId);
      return reply.type('application/json; charset=utf-8').send(Readable.from(eventsBody(events, runs.bus.redactor.json)));
    },
  );

  app.post<{ Params: { runId: string } }>(
    '/api/runs/:runId/stop',
    { schema: route(tag, 'stop a run in flight (a chat turn stopped here holds its queue, as POST /api/chat/stop does)', { params: runId, body: noBody, response: { 202: ok() } }) },
    async (req, reply) => {
      const run = runs.get(req.params.runId);
      if (run) run.stop();
      else if (!(await runs.stopElsewhere(req.params.runId))) throw notFound(`no run ${req.params.runId} is in flight; GET /api/runs lists the runs and their status`);
      return reply.code(202).send({ ok: true });
    },
  );
}
