/**
 * The provider map in <home>/engine.config.json. PUT /api/config replaces `providers` and
 * `defaultProvider` (and `embeddings` when sent), moves every `newKey` into the secret store and
 * keeps the other top-level keys (`api`, anything a later capability adds) intact. A change made to
 * the file by someone else is picked up by a watch on the home folder and announced as
 * `config.reloaded`; the engine's own writes are recognised by their content and ignored.
 */
import { watch, type FSWatcher } from 'node:fs';
import { promises as fs } from 'node:fs';
import type { Bus } from '../../kernel/bus.js';
import { badRequest, describeError, isEngineError, jsonSyntaxReason } from '../../kernel/errors.js';
import { HOME_LAYOUT, type Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import { serialQueue } from '../../kernel/serial.js';
import type { SecretStore } from '../secrets/types.js';
import { EMBEDDINGS_SECRET, providerSecretName, type ConfigService, type EngineConfig, type ProviderConfig } from './types.js';
import { KeyUrls, keyTarget } from './key-urls.js';
import { stripKeys, validateDefaultProvider, validateEmbeddings, validateProviders, type ProviderInput } from './validate.js';

/** What GET /api/config answers: the map with `hasKey` per provider and never key material. */
export interface PublicConfig {
  providers: Array<ProviderConfig & { hasKey: boolean }>;
  defaultProvider: string | null;
  embeddings: EngineConfig['embeddings'] | null;
}

export interface ConfigServiceImpl extends ConfigService {
  view(): Promise<PublicConfig>;
  /** Validates and saves `{providers[], defaultProvider, embeddings?}`; returns the public view. */
  update(body: unknown): Promise<PublicConfig>;
  /** Replaces one top-level section another capability owns (the gateway's `api`), keeping the rest. */
  setSection(key: 'api', value: Record<string, unknown>): Promise<void>;
  /** Reads the file again (the watcher calls this; tests may too). */
  reload(): Promise<void>;
  close(): void;
}

export async function createConfigService(deps: { home: Home; bus: Bus; secrets: SecretStore; log: (line: string) => void }): Promise<ConfigServiceImpl> {
  const { home, bus, secrets, log } = deps;
  const file = home.path(HOME_LAYOUT.config);
  const listeners = new Set<(c: EngineConfig) => void>();
  let config: EngineConfig = deepFreeze({ providers: [], defaultProvider: null });
  /** The whole file as last parsed, so keys this service does not own survive a save. */
  let raw: Record<string, unknown> = {};
  /** The exact text the file holds as far as the engine knows (its own last write or last read). */
  let knownText: string | undefined;

  const serial = serialQueue();
  const keyUrls = new KeyUrls(home);
  await keyUrls.load();

  const notify = () => {
    for (const l of listeners) {
      try {
        l(config);
      } catch (err) {
        log(`config: a change listener failed: ${describeError(err)}`);
      }
    }
  };

  const write = async (next: Record<string, unknown>) => {
    const text = JSON.stringify(next, null, 2) + '\n';
    knownText = text;
    await home.writeAtomic(file, text);
  };

  /**
   * The embeddings endpoint's key: `newKey` stores it, `clearKey` drops it, and a new endpoint URL
   * without a new key drops the old one (a key only goes to the URL it was given for).
   */
  async function storeEmbeddingsKey(input: unknown, next: EngineConfig['embeddings'] | null): Promise<void> {
    const given = input && typeof input === 'object' ? (input as { newKey?: unknown; clearKey?: unknown }) : undefined;
    if (typeof given?.newKey === 'string' && given.newKey) await secrets.set(EMBEDDINGS_SECRET, given.newKey);
    else if (given?.clearKey === true || !next?.baseUrl || (config.embeddings?.baseUrl && new URL(config.embeddings.baseUrl).origin !== new URL(next.baseUrl).origin)) await secrets.delete(EMBEDDINGS_SECRET);
  }

  /** Stores keys and returns the entries as they are kept. */
  const storeKeys = async (inputs: ProviderInput[]): Promise<ProviderConfig[]> => {
    for (const p of inputs) {
      const secretName = providerSecretName(p.name);
      if (p.newKey) {
        await secrets.set(secretName, p.newKey);
        await keyUrls.set(secretName, keyTarget(p.type, p.baseUrl));
      } else if (p.clearKey) {
        await secrets.delete(secretName);
        await keyUrls.delete(secretName);
      }
    }
    return inputs.map(stripKeys);
  };

  /** Parses file text into a config; a file carrying key fields is rewritten without them. */
  const adopt = async (text: string): Promise<void> => {
    let parsed: unknown;
    try {
      parsed = text.trim() ? JSON.parse(text) : {};
    } catch (err) {
      throw badRequest(`${HOME_LAYOUT.config} is not valid JSON (${jsonSyntaxReason(err)}); fix it by hand`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw badRequest(`${HOME_LAYOUT.config} must hold a JSON object`);
    const obj = parsed as Record<string, unknown>;
    const inputs = validateProviders(obj.providers ?? [], true);
    const providers = inputs.map(stripKeys);
    const defaultProvider = validateDefaultProvider(obj.defaultProvider, providers);
    const embeddings = validateEmbeddings(obj.embeddings);
    const hadKeys = inputs.some((p) => p.newKey || p.clearKey);
    // Keys typed into the file by hand go to the secret store, and the file is rewritten without them.
    await storeKeys(inputs);
    raw = { ...obj, providers, defaultProvider };
    if (obj.embeddings !== undefined) raw.embeddings = embeddings;
    config = deepFreeze(structuredClone({ ...(raw as object), providers, defaultProvider, embeddings }) as EngineConfig);
    if (hadKeys) await write(raw);
    else knownText = text;
  };

  const readText = async (): Promise<string | undefined> => {
    try {
      return await fs.readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  };

  // Start: a bad file must not stop the engine; it runs with no providers and says why.
  try {
    const text = await readText();
    if (text !== undefined) await adopt(text);
  } catch (err) {
    log(`config: ${describeError(err)}; starting with no providers`);
  }

  const reload = () =>
    serial(async () => {
      const text = await readText();
      if (text === undefined || text === knownText) return; // gone (mid-rename) or our own write
      try {
        await adopt(text);
      } catch (err) {
        knownText = text; // do not report the same bad text again on the next event
        const error = isEngineError(err) ? err.message : describeError(err);
        log(`config: ignored an edit of ${HOME_LAYOUT.config}: ${error}`);
        bus.emit('config.reloaded', { ok: false, error, ...summary(config) });
        return;
      }
      bus.emit('config.reloaded', { ok: true, ...summary(config) });
      notify();
    });

  // Watch the folder, not the file: an atomic save replaces the file's inode and a file watch would go deaf.
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    watcher = watch(home.root, { persistent: false }, (_event, name) => {
      if (name && name.toString() !== HOME_LAYOUT.config) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => void reload().catch((err) => log(`config: reload failed: ${describeError(err)}`)), LIMITS.configWatchDebounceMs);
    });
    watcher.on('error', (err) => log(`config: watching ${home.root} stopped: ${describeError(err)}`));
  } catch (err) {
    log(`config: cannot watch ${home.root} (${describeError(err)}); edits on disk need a restart`);
  }

  const view = async (): Promise<PublicConfig> => {
    const names = new Set(await secrets.names());
    return {
      providers: config.providers.map((p) => ({ ...p, hasKey: names.has(providerSecretName(p.name)) })),
      defaultProvider: config.defaultProvider,
      embeddings: config.embeddings ?? null,
    };
  };

  return {
    // The config object is replaced on every change and frozen, so handing it out uncopied is safe and cheap.
    get: () => config,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async providerKey(name) {
      return secrets.get(providerSecretName(name));
    },
    async providerKeyFor(name, type, baseUrl) {
      const secretName = providerSecretName(name);
      const key = await secrets.get(secretName);
      if (key === undefined) return undefined;
      let bound = keyUrls.get(secretName);
      if (bound === undefined) {
        // A key stored before bindings existed: bound now to where its configured provider points.
        const configured = config.providers.find((p) => p.name === name);
        if (configured) {
          bound = keyTarget(configured.type, configured.baseUrl);
          await keyUrls.set(secretName, bound);
        }
      }
      KeyUrls.refuseElsewhere(name, bound, keyTarget(type, baseUrl));
      return key;
    },
    view,
    reload,
    update(body) {
      return serial(async () => {
        if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('send {"providers": [...], "defaultProvider": "name" or null}');
        const b = body as Record<string, unknown>;
        for (const k of Object.keys(b)) {
          if (!['providers', 'defaultProvider', 'embeddings'].includes(k)) throw badRequest(`unknown field "${k}"; send providers, defaultProvider and optionally embeddings`);
        }
        if (b.providers === undefined) throw badRequest('providers is required (an array; send [] for none)');
        const inputs = validateProviders(b.providers);
        const plain = inputs.map(stripKeys);
        const defaultProvider = validateDefaultProvider(b.defaultProvider, plain);
        const embeddings = b.embeddings === undefined ? config.embeddings ?? null : validateEmbeddings(b.embeddings);
        const providers = await storeKeys(inputs);
        await storeEmbeddingsKey(b.embeddings, embeddings);
        // A provider that is gone takes its key with it: no orphan secret outlives its provider.
        const kept = new Set(providers.map((p) => p.name));
        for (const old of config.providers) if (!kept.has(old.name)) await secrets.delete(providerSecretName(old.name));
        const next: Record<string, unknown> = { ...raw, providers, defaultProvider };
        if (b.embeddings !== undefined || raw.embeddings !== undefined) next.embeddings = embeddings;
        await write(next);
        raw = next;
        config = deepFreeze(structuredClone({ ...(next as object), providers, defaultProvider, embeddings }) as EngineConfig);
        bus.emit('config.updated', summary(config));
        notify();
        return view();
      });
    },
    setSection(key, value) {
      return serial(async () => {
        const next = { ...raw, [key]: value };
        await write(next);
        raw = next;
        config = deepFreeze(structuredClone({ ...config, [key]: value }) as EngineConfig);
      });
    },
    close() {
      if (timer) clearTimeout(timer);
      watcher?.close();
    },
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** What an event may say about the config: names and types, never keys or URLs with credentials. */
function summary(config: EngineConfig) {
  return {
    providers: config.providers.map((p) => ({ name: p.name, type: p.type, model: p.model })),
    defaultProvider: config.defaultProvider,
    embeddings: !!config.embeddings,
  };
}
