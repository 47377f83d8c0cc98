/** Local-model routes (docs/local-models.md). GET /api/models itself is declared by the gateway's routes, which merge `modelsStatusSchema`. */
import type { FastifyInstance } from 'fastify';
import { arr, bool, int, noBody, nullable, obj, ok, oneOf, openObj, params, query, route, str, type Schema } from '../../http/schemas.js';
import type { ModelsService } from './service.js';
import { DEFAULT_DTYPE, DTYPES } from './types.js';

const repoParams = params({ org: 'the repo’s owner', name: 'the repo’s name' });
const download = obj({
  id: str(), repo: str(), dtype: str(), commit: str('the pinned commit'), state: oneOf('running', 'completed', 'failed', 'canceled'),
  bytes: int(), total: int(), files: arr(str()), error: str(),
}, ['id', 'repo', 'dtype', 'commit', 'state', 'bytes', 'total', 'files']);
const localModel = obj({ repo: str(), commit: str(), dtypes: arr(str()), bytes: int(), path: str() }, ['repo', 'commit', 'dtypes', 'bytes', 'path']);

/** The local-model members of GET /api/models' answer. */
export const modelsStatusSchema: Record<string, Schema> = {
  models: arr(localModel, 'downloaded models'),
  downloads: arr(download, 'downloads since the engine started (running, completed, failed, canceled)'),
  loaded: nullable(openObj('the loaded model: repo, dtype, pid, state')),
};

export function modelsRoutes(app: FastifyInstance, models: ModelsService): void {
  modelWorkerRoutes(app, models);
  app.get(
    '/api/models/hf-search',
    {
      schema: route('models', 'search the model hub for text-generation models with ONNX weights', {
        querystring: query({ q: 'words in the model’s name', limit: 'at most this many (1-100, default 20)' }),
        response: { 200: obj({ endpoint: str('the hub searched (HF_ENDPOINT or the public hub)'), models: arr(obj({ repo: str(), downloads: int(), likes: int(), gated: bool(), pipeline: nullable(str()), tags: arr(str()) }, ['repo'])) }, ['endpoint', 'models']) },
      }),
    },
    async (req) => {
      const q = req.query as { q?: string; limit?: string };
      return models.search(q.q, q.limit);
    },
  );
  app.get(
    '/api/models/hf-detail/:org/:name',
    {
      schema: route('models', 'one hub repo: files with sizes, which dtypes exist, gated or not, whether each fits this machine', {
        params: repoParams,
        response: { 200: openObj('repo, commit, gated, files[{name, size, sha256}], dtypes[{dtype, bytes, downloaded, fits, reason}], recommended') },
      }),
    },
    async (req) => {
      const p = req.params as { org: string; name: string };
      return models.detail(`${p.org}/${p.name}`);
    },
  );
  app.get(
    '/api/models/resources',
    {
      schema: route('models', 'memory, CPU cores, GPUs, free disk where models live; with ?repo= whether that downloaded model fits', {
        querystring: query({ repo: 'a downloaded model, org/name' }),
        response: { 200: openObj('memory, cpu, gpus, disk, and model {fits, reason} for ?repo=') },
      }),
    },
    async (req) => models.resources((req.query as { repo?: string }).repo),
  );
  app.post(
    '/api/models/download',
    {
      schema: route('models', 'download the files one dtype of a hub repo needs, pinned to its current commit; progress as model.download.* events', {
        body: obj({ repo: str('org/name on the hub'), dtype: { enum: DTYPES, description: `default ${DEFAULT_DTYPE}` } }, ['repo']),
        response: { 202: ok({ id: str('the download’s id'), commit: str(), files: arr(str()), total: int('bytes to fetch') }) },
      }),
    },
    async (req, reply) => {
      const started = await models.downloads.start(req.body as { repo?: unknown; dtype?: unknown });
      return reply.code(202).send({ ok: true, ...started });
    },
  );
  app.delete(
    '/api/models/download/:id',
    { schema: route('models', 'cancel a running download and remove its partial files', { params: params({ id: 'the download’s id' }), response: { 200: ok() } }) },
    async (req) => {
      await models.downloads.cancel((req.params as { id: string }).id);
      return { ok: true };
    },
  );
  app.delete(
    '/api/models/:org/:name',
    { schema: route('models', 'delete a downloaded model’s files', { params: repoParams, response: { 200: ok() } }) },
    async (req) => {
      const p = req.params as { org: string; name: string };
      await models.remove(`${p.org}/${p.name}`);
      return { ok: true };
    },
  );
}

function modelWorkerRoutes(app: FastifyInstance, models: ModelsService): void {
  app.post(
    '/api/models/load',
    {
      schema: route('models', 'load a downloaded model into its own worker process; progress as model.loading, then model.loaded', {
        body: obj({ repo: str('org/name of a downloaded model'), dtype: { enum: DTYPES, description: 'a downloaded dtype; default: the first of q4f16, q4, q8, fp32 that loads' } }, ['repo']),
        response: { 202: ok({ repo: str() }) },
      }),
    },
    async (req, reply) => reply.code(202).send({ ok: true, ...(await models.load(req.body as { repo?: unknown; dtype?: unknown })) }),
  );
  app.post(
    '/api/models/unload',
    { schema: route('models', 'end the loaded model’s worker process (its memory returns to the system)', { body: noBody, response: { 200: ok({ unloaded: bool('a model was loaded') }) } }) },
    async () => ({ ok: true, ...(await models.unload()) }),
  );
}
