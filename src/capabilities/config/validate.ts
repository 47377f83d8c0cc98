/**
 * Validation of the provider map, shared by PUT /api/config and a reload of engine.config.json
 * from disk, so a hand edit is held to the same rules as a client.
 */
import { badRequest } from '../../kernel/errors.js';
import { PROVIDER_TYPES, type EmbeddingsConfig, type ProviderConfig, type ProviderType } from './types.js';

/** A provider entry as a client sends it: the config fields plus a key to store. */
export interface ProviderInput extends ProviderConfig {
  newKey?: string;
  clearKey?: boolean;
}

/** Fields a provider entry may carry. `hasKey` is what GET answers, so a client may send it back; it is ignored. */
const PROVIDER_FIELDS = new Set(['type', 'baseUrl', 'model', 'name', 'contextWindow', 'prices', 'newKey', 'clearKey', 'hasKey']);
/** Key fields a person may type into the file by hand; they are moved to the secret store like `newKey`. */
export const KEY_FIELDS = ['newKey', 'apiKey', 'key'] as const;

export function validateProviders(raw: unknown, onDisk = false): ProviderInput[] {
  if (!Array.isArray(raw)) throw badRequest('providers must be an array of {type, model, baseUrl?, name?, newKey?}');
  const seen = new Set<string>();
  return raw.map((entry, i) => {
    const where = `providers[${i}]`;
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw badRequest(`${where} must be an object with type and model`);
    const e = entry as Record<string, unknown>;
    for (const field of Object.keys(e)) {
      if (!PROVIDER_FIELDS.has(field) && !(onDisk && (KEY_FIELDS as readonly string[]).includes(field))) {
        throw badRequest(`${where} has an unknown field "${field}"; a provider has type, baseUrl, model, name, contextWindow, prices and newKey`);
      }
    }
    if (typeof e.type !== 'string' || !PROVIDER_TYPES.includes(e.type as ProviderType)) {
      throw badRequest(`${where}.type must be one of ${PROVIDER_TYPES.join(', ')}`);
    }
    if (typeof e.model !== 'string' || !e.model.trim()) throw badRequest(`${where}.model is required (the model id the provider serves)`);
    const out: ProviderInput = { type: e.type as ProviderType, model: e.model.trim(), name: e.type };
    if (e.baseUrl !== undefined && e.baseUrl !== null && e.baseUrl !== '') {
      if (typeof e.baseUrl !== 'string' || !isHttpUrl(e.baseUrl)) throw badRequest(`${where}.baseUrl must be an http:// or https:// URL, e.g. http://127.0.0.1:11434/v1`);
      out.baseUrl = e.baseUrl.trim();
    }
    if (e.name !== undefined && e.name !== null && e.name !== '') {
      if (typeof e.name !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(e.name)) {
        throw badRequest(`${where}.name must be 1-64 letters, digits, dots, dashes or underscores`);
      }
      out.name = e.name;
    }
    if (seen.has(out.name)) throw badRequest(`two providers are named "${out.name}"; give each a unique name`);
    seen.add(out.name);
    if (e.contextWindow !== undefined) {
      if (typeof e.contextWindow !== 'number' || !Number.isInteger(e.contextWindow) || e.contextWindow < 1) {
        throw badRequest(`${where}.contextWindow must be a positive whole number of tokens`);
      }
      out.contextWindow = e.contextWindow;
    }
    if (e.prices !== undefined) out.prices = validatePrices(e.prices, where);
    const key = KEY_FIELDS.map((f) => e[f]).find((v) => v !== undefined && v !== null && v !== '');
    if (key !== undefined) {
      if (typeof key !== 'string') throw badRequest(`${where}.newKey must be a string`);
      out.newKey = key;
    }
    if (e.clearKey !== undefined) {
      if (typeof e.clearKey !== 'boolean') throw badRequest(`${where}.clearKey must be true or false`);
      out.clearKey = e.clearKey;
    }
    return out;
  });
}

function validatePrices(raw: unknown, where: string): ProviderConfig['prices'] {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw badRequest(`${where}.prices must map model ids to {input, output, cachedInput?} in USD per million tokens`);
  for (const [model, price] of Object.entries(raw as Record<string, unknown>)) {
    const p = price as Record<string, unknown> | null;
    const ok = p && typeof p === 'object' && typeof p.input === 'number' && typeof p.output === 'number' && (p.cachedInput === undefined || typeof p.cachedInput === 'number');
    if (!ok) throw badRequest(`${where}.prices["${model}"] must be {input, output, cachedInput?} in USD per million tokens`);
  }
  return raw as ProviderConfig['prices'];
}

export function validateDefaultProvider(raw: unknown, providers: ProviderConfig[]): string | null {
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw !== 'string' || !providers.some((p) => p.name === raw)) {
    const names = providers.map((p) => p.name);
    throw badRequest(`defaultProvider "${String(raw)}" names no provider; use one of ${names.length ? names.join(', ') : '(none configured)'} or null`);
  }
  return raw;
}

export function validateEmbeddings(raw: unknown): EmbeddingsConfig | null {
  if (raw === undefined || raw === null) return null;
  const e = raw as Record<string, unknown>;
  if (typeof raw === 'object' && !Array.isArray(raw) && e.local === true) {
    if (typeof e.model !== 'string' || !/^[\w.-]+\/[\w.-]+$/.test(e.model.trim())) throw badRequest('a local embeddings model is {local: true, model: "<org>/<name>"}, a model downloaded with POST /api/models/download');
    return { local: true, model: e.model.trim() };
  }
  if (typeof raw !== 'object' || Array.isArray(raw) || typeof e.baseUrl !== 'string' || !isHttpUrl(e.baseUrl) || typeof e.model !== 'string' || !e.model.trim()) {
    throw badRequest('embeddings must be null, {baseUrl: an http(s) URL, model, name?, newKey?} or {local: true, model: "<org>/<name>"}');
  }
  const out: EmbeddingsConfig = { baseUrl: e.baseUrl, model: e.model.trim() };
  if (typeof e.name === 'string' && e.name) out.name = e.name;
  return out;
}

export function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text.trim());
    return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname;
  } catch {
    return false;
  }
}

/** The config fields as stored: a provider entry without any key material. */
export function stripKeys(p: ProviderInput): ProviderConfig {
  const { newKey: _n, clearKey: _c, ...rest } = p;
  const clean = { ...rest } as ProviderConfig & Record<string, unknown>;
  delete clean.hasKey;
  for (const f of KEY_FIELDS) delete clean[f];
  return clean;
}
