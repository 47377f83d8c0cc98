/**
 * Local models (issue 16, docs/local-models.md): the hub client, downloads, the store, the
 * resources, and (src/capabilities/models/worker-*.ts) the worker process that runs a loaded model.
 */
import type { Emit } from '../../kernel/bus.js';
import { EngineError } from '../../kernel/errors.js';
import type { Home } from '../../kernel/home.js';
import { Downloads } from './downloads.js';
import { createHubClient, describeDetail, HF_TOKEN_SECRET, searchHit, type HubClient } from './hub.js';
import { fits, machineResources } from './resources.js';
import { ModelStore } from './store.js';
import { WorkerHost } from './worker-host.js';
import { localLanguageModel } from '../../providers/local.js';
import type { ModelClient } from '../../providers/types.js';
import { LIMITS } from '../../kernel/limits.js';
import { checkRepo, DTYPE_FALLBACK, DTYPE_SUFFIX } from './types.js';

interface ModelsDeps {
  home: Home;
  emit: Emit;
  log: (line: string) => void;
  secret: (name: string) => Promise<string | undefined>;
}

export function createModelsService(deps: ModelsDeps) {
  const store = new ModelStore(deps.home.path('models'));
  const hub: HubClient = createHubClient(() => deps.secret(HF_TOKEN_SECRET));
  const downloads = new Downloads({ hub, store, emit: deps.emit, log: deps.log });
  const worker = new WorkerHost({ store, emit: deps.emit, log: deps.log, idleMs: idleUnloadMs });

  return {
    store,
    hub,
    downloads,
    worker,
    /** What the completions gateway serves of the local models. */
    gatewayModels: {
      list: async () => (await store.list()).map((m) => m.repo),
      client: (repo: string): ModelClient => ({ provider: 'local', type: 'local', modelId: repo, model: localLanguageModel(worker, repo), contextWindow: LIMITS.defaultContextWindow }),
    },
    /** Starts loading; the answer comes before the model is ready (model.loading / model.loaded follow). */
    async load(body: { repo?: unknown; dtype?: unknown }) {
      if (body.dtype !== undefined && (typeof body.dtype !== 'string')) throw new EngineError(400, 'dtype must be a dtype the model has downloaded');
      const { repo } = await worker.load(body.repo, body.dtype as string | undefined);
      return { repo };
    },
    async unload() {
      return { unloaded: await worker.unload('requested') };
    },
    async search(q: unknown, limit: unknown) {
      if (typeof q !== 'string' || !q.trim()) throw new EngineError(400, 'q is required: the words to search model names for, e.g. ?q=qwen');
      const n = limit === undefined ? 20 : Number(limit);
      if (!Number.isInteger(n) || n < 1 || n > 100) throw new EngineError(400, 'limit must be a whole number from 1 to 100');
      return { endpoint: hub.endpoint(), models: (await hub.search(q.trim(), n)).map(searchHit) };
    },
    async detail(repo: string) {
      const d = describeDetail(await hub.detail(checkRepo(repo)));
      const r = await machineResources(store.root);
      const local = await store.get(d.repo);
      const dtypes = d.dtypes.map((dtype) => {
        const weights = d.files.filter((f) => f.name === `onnx/model${DTYPE_SUFFIX[dtype]}.onnx` || f.name.startsWith(`onnx/model${DTYPE_SUFFIX[dtype]}.onnx_data`));
        const bytes = weights.reduce((n, f) => n + f.size, 0);
        return { dtype, bytes, downloaded: Boolean(local?.dtypes.includes(dtype)), ...fits(bytes, r) };
      });
      return { ...d, dtypes, recommended: DTYPE_FALLBACK.find((x) => dtypes.some((y) => y.dtype === x && y.fits)) ?? null };
    },
    async resources(repo?: string) {
      const r = await machineResources(store.root);
      if (!repo) return r;
      const m = await store.get(checkRepo(repo));
      if (!m) throw new EngineError(404, `${repo} is not downloaded; ask GET /api/models/hf-detail/${repo} whether it fits before downloading`);
      return { ...r, model: { repo, bytes: m.bytes, ...fits(m.bytes, r, true) } };
    },
    async status() {
      return { models: await store.list(), downloads: downloads.list(), loaded: worker.status() };
    },
    async remove(repo: string) {
      checkRepo(repo);
      if (downloads.inFlight().some((d) => d.repo === repo)) throw new EngineError(409, `${repo} is downloading; cancel the download first`);
      if (worker.status()?.repo === repo) await worker.unload('deleted');
      await store.remove(repo);
    },
    close: async () => {
      await downloads.close();
      await worker.close();
    },
  };
}

/** A loaded model idle this long unloads: ENGINE_MODEL_IDLE_SECONDS (0 keeps it), default 15 minutes. */
function idleUnloadMs(): number {
  const raw = process.env.ENGINE_MODEL_IDLE_SECONDS;
  const n = raw === undefined || raw === '' ? 15 * 60 : Number(raw);
  return Number.isFinite(n) && n >= 0 ? n * 1000 : 15 * 60_000;
}

export type ModelsService = ReturnType<typeof createModelsService>;
