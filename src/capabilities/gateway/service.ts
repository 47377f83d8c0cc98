/**
 * The completions gateway (seed 000 §1, §4.13, §4.14): a second listener serving only /v1/*, an
 * OpenAI-compatible front for every provider of the provider map. OpenAI-style upstreams are
 * streamed through; others are translated (translate.ts). Every completion is billed to an
 * auxiliary run (source `gateway`) so its tokens reach /api/report and its events reach /events.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, EngineError } from '../../kernel/errors.js';
import type { Emit } from '../../kernel/bus.js';
import { LIMITS } from '../../kernel/limits.js';
import type { RunLedger } from '../../kernel/runs.js';
import type { Guard } from '../../http/guard.js';
import type { ProviderService } from '../../providers/service.js';
import type { ModelClient } from '../../providers/types.js';
import type { ProviderConfig } from '../config/types.js';
import type { SecretStore } from '../secrets/types.js';
import { authorize } from './auth.js';
import { GatewayError, invalidRequest, sendError } from './errors.js';
import { GatewayKey } from './key.js';
import { GatewayListener } from './listener.js';
import { passthrough } from './passthrough.js';
import { translated } from './translate.js';
import type { ChatCompletionRequest, GatewayConfig, GatewayScope, GatewayStatus } from './types.js';
import { validateCompletion } from './validate.js';

export interface GatewayDeps {
  /** The engine's provider map and the gateway's own section of engine.config.json. */
  config: {
    get(): { providers: readonly ProviderConfig[]; defaultProvider: string | null; api?: Record<string, unknown> };
    /** The provider's key, refused when it was stored for another URL (a key goes only where it was stored for). */
    providerKeyFor(name: string, type: ProviderConfig['type'], baseUrl: string | undefined): Promise<string | undefined>;
    onChange(listener: () => void): () => void;
    setSection(key: 'api', value: Record<string, unknown>): Promise<void>;
  };
  providers: ProviderService;
  runs: RunLedger;
  secrets: SecretStore;
  guard: Guard;
  /** Masks secret values in every sentence the gateway sends or logs. */
  mask: (text: string) => string;
  emit: Emit;
  log: (line: string) => void;
  port: number;
  /** Downloaded local models (docs/local-models.md): listed as `owned_by: "engine-local"`, served by their repo id. */
  local?: { list(): Promise<string[]>; client(repo: string): ModelClient };
}

export interface BindAnswer extends GatewayStatus {
  ok: true;
  /** The new bearer key, present only in the answer that minted it. */
  key?: string;
}

export type GatewayService = Awaited<ReturnType<typeof createGatewayService>>;

const OPENAI_DEFAULT_BASE = 'https://api.openai.com/v1';

export async function createGatewayService(deps: GatewayDeps) {
  const key = new GatewayKey(deps.secrets);
  await key.load();
  let requestsServed = 0;
  const started = Math.floor(Date.now() / 1000);
  const listener = new GatewayListener(deps.port, (req, res) => void handle(req, res));

  const scopeOf = (): GatewayScope => ((deps.config.get().api as Partial<GatewayConfig> | undefined)?.bind === 'network' ? 'network' : 'local');

  const status = (): GatewayStatus => ({
    scope: scopeOf(),
    port: listener.listening ? listener.port : null,
    host: listener.host,
    listening: listener.listening,
    ...(listener.error ? { error: listener.error } : {}),
    hasKey: key.exists,
    keyFingerprint: key.fingerprint,
    requestsServed,
  });

  const apply = async (): Promise<void> => {
    try {
      await listener.bind(scopeOf());
    } catch (err) {
      deps.log(`gateway: ${(err as Error).message}`);
    }
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const denied = authorize(req, deps.guard, key);
      if (denied) return sendError(res, denied);
      const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
      if (path === '/v1/models') {
        if (req.method !== 'GET') return sendError(res, new GatewayError(405, 'method not allowed; use GET /v1/models', 'invalid_request_error', 'method_not_allowed'));
        return sendJson(res, await models());
      }
      if (path === '/v1/chat/completions') {
        if (req.method !== 'POST') return sendError(res, new GatewayError(405, 'method not allowed; use POST /v1/chat/completions', 'invalid_request_error', 'method_not_allowed'));
        return await complete(req, res);
      }
      return sendError(res, new GatewayError(404, `the gateway serves GET /v1/models and POST /v1/chat/completions only (no ${req.method} ${path || '/'})`, 'not_found_error', 'unknown_url'));
    } catch (err) {
      const error = err instanceof GatewayError ? err : undefined;
      if (!error) deps.log(`gateway: ${req.method} ${req.url} failed: ${deps.mask((err as Error)?.stack ?? String(err))}`);
      if (res.headersSent) return void res.destroy();
      sendError(res, error ? masked(error) : new GatewayError(500, 'internal error; the engine log has the details', 'server_error'));
    }
  }

  const masked = (e: GatewayError) => new GatewayError(e.status, deps.mask(e.message), e.type, e.code);

  async function models() {
    const { providers, defaultProvider } = deps.config.get();
    const entry = (id: string, owner: string) => ({ id, object: 'model', created: started, owned_by: owner });
    const data = providers.map((p) => entry(p.name, p.type));
    if (providers.length) data.push(entry('default', defaultProvider ?? providers[0].name));
    const names = new Set(data.map((d) => d.id));
    for (const repo of (await deps.local?.list().catch(() => [] as string[])) ?? []) if (!names.has(repo)) data.push(entry(repo, 'engine-local'));
    return { object: 'list', data };
  }

  /** `default`, a provider name, or `<provider>/<model id>` (the provider's endpoint with another model). */
  async function target(model: string): Promise<{ provider: ProviderConfig; modelId: string }> {
    const { providers, defaultProvider } = deps.config.get();
    const byName = (name: string) => providers.find((p) => p.name === name);
    const found = model === 'default' ? byName(defaultProvider ?? '') ?? providers[0] : byName(model);
    if (found) return { provider: found, modelId: found.model };
    const slash = model.indexOf('/');
    const owner = slash > 0 ? byName(model.slice(0, slash)) : undefined;
    if (owner && model.length > slash + 1) return { provider: owner, modelId: model.slice(slash + 1) };
    // A downloaded local model by its repo id: no provider entry needed, no key.
    if ((await deps.local?.list().catch(() => [] as string[]))?.includes(model)) return { provider: { type: 'local', name: 'local', model }, modelId: model };
    const names = providers.map((p) => p.name);
    throw new GatewayError(404, names.length ? `model "${model}" is not served here; use "default", one of ${names.join(', ')}, or "<provider>/<model id>"` : 'no model provider is configured; add one with PUT /api/config on the engine', 'invalid_request_error', 'model_not_found');
  }

  async function complete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = validateCompletion(await readJson(req));
    const { provider, modelId } = await target(body.model);
    const caller = req.socket.remoteAddress ?? 'unknown';
    requestsServed++;
    const abort = new AbortController();
    // A caller that goes away aborts the upstream at once; so does a stop of the run.
    res.on('close', () => !res.writableFinished && abort.abort());
    const answered = dispatch(body, provider, modelId, res, abort.signal);
    answered.catch(() => undefined); // awaited below; this only keeps an early failure from counting as unhandled
    // The run's bookkeeping (its record, its log, run.started on the bus) waits until the request has
    // gone upstream (a write made in this tick's microtasks and nextTicks), so it overlaps the
    // upstream's time to answer instead of adding to the caller's first byte.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // One log shared by every gateway run: a file of its own per completion costs a file creation each.
    const run = deps.runs.start({ source: 'gateway', provider: provider.name, model: modelId, caller, title: `gateway completion for ${caller}`, sharedLog: 'gateway' });
    run.signal.addEventListener('abort', () => abort.abort(), { once: true });
    try {
      const { usage } = await answered;
      if (usage) run.emit('token.usage', { ...usage, model: modelId, provider: provider.name });
      await run.finish(abort.signal.aborted ? 'stopped' : 'completed');
    } catch (err) {
      const stopped = abort.signal.aborted;
      const error = err instanceof GatewayError ? masked(err) : undefined;
      await run.finish(stopped ? 'stopped' : 'failed', { error: error?.message ?? 'internal error' });
      if (stopped) return void res.destroy();
      throw err;
    }
  }

  async function dispatch(body: ChatCompletionRequest, provider: ProviderConfig, modelId: string, res: ServerResponse, signal: AbortSignal) {
    if (provider.type === 'openai-compatible' || provider.type === 'openai') {
      const baseUrl = provider.baseUrl || (provider.type === 'openai' ? OPENAI_DEFAULT_BASE : '');
      if (!baseUrl) throw new GatewayError(500, `provider "${provider.name}" has no baseUrl; fix it with PUT /api/config`, 'server_error');
      let key: string | undefined;
      try {
        key = await deps.config.providerKeyFor(provider.name, provider.type, provider.baseUrl);
      } catch (err) {
        throw new GatewayError(500, (err as Error).message, 'server_error', 'key_bound_elsewhere');
      }
      return passthrough(body, { baseUrl, model: modelId, key, provider: provider.name }, res, signal);
    }
    const configured = deps.config.get().providers.some((p) => p.name === provider.name);
    const client = provider.type === 'local' && !configured && deps.local ? deps.local.client(modelId) : await deps.providers.resolve(provider.name, modelId === provider.model ? undefined : modelId);
    return translated(body, client, body.model, res, signal);
  }

  /** POST /api/models/api: moves the gateway between scopes; widening mints a key first. */
  async function setBind(input: unknown): Promise<BindAnswer> {
    const b = (input ?? {}) as { bind?: unknown; rotateKey?: unknown };
    if (b.bind !== 'local' && b.bind !== 'network') throw badRequest('bind must be "local" (127.0.0.1 only) or "network" (every interface, bearer key required)');
    if (b.rotateKey !== undefined && typeof b.rotateKey !== 'boolean') throw badRequest('rotateKey must be true or false');
    // The key exists before the first network caller can arrive.
    const minted = (b.bind === 'network' && !key.exists) || b.rotateKey === true ? await key.mint() : undefined;
    await deps.config.setSection('api', { ...(deps.config.get().api ?? {}), bind: b.bind });
    await apply();
    if (listener.error) throw new EngineError(409, `the gateway could not move to ${b.bind}: ${listener.error}`);
    const answer = status();
    deps.emit('gateway.changed', { scope: answer.scope, port: answer.port, hasKey: answer.hasKey, keyFingerprint: answer.keyFingerprint, rotated: !!minted });
    return { ok: true, ...answer, ...(minted ? { key: minted } : {}) };
  }

  deps.config.onChange(() => void apply());

  return {
    /** Starts listening in the saved scope; a busy port is logged and reported in status, never fatal. */
    start: apply,
    status,
    setBind,
    close: () => listener.close(),
  };
}

function sendJson(res: ServerResponse, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > LIMITS.requestBodyBytes) {
        reject(new GatewayError(413, 'request body is too large; the limit is 32 MB', 'invalid_request_error', 'request_too_large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(invalidRequest('the body is not valid JSON; send {model, messages: [...]} with content-type application/json'));
      }
    });
    req.on('error', reject);
  });
}
