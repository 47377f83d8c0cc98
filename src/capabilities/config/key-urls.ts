/**
 * Which URL each stored provider key belongs to: a key goes only to the URL it was stored with
 * (POST /api/test-provider with another baseUrl, a hand edit of baseUrl in engine.config.json, a
 * PUT /api/config that moves the URL without sending the key again: none of them sends the key
 * anywhere new). `<home>/provider-key-urls.json` maps the key's secret name to its canonical URL;
 * URLs are not secret. A key stored before this file existed (or through POST /api/secrets) is
 * bound on first use to the baseUrl its provider has in the config (trust on first use).
 */
import { badRequest } from '../../kernel/errors.js';
import type { Home } from '../../kernel/home.js';
import type { ProviderType } from './types.js';

export const KEY_URLS_FILE = 'provider-key-urls.json';

/** Where each vendor's SDK sends a request when no baseUrl is given. */
const VENDOR_DEFAULTS: Record<string, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
};

/** The canonical form of where a provider's requests go: two spellings of one API root compare equal. */
export function keyTarget(type: ProviderType | string, baseUrl: string | undefined | null): string {
  const raw = baseUrl?.trim() || VENDOR_DEFAULTS[type] || '';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw;
  }
  url.hash = '';
  let path = url.pathname.replace(/\/+$/, '');
  // The Anthropic SDK takes the host or the /v1 root (clients.ts anthropicBaseUrl): one target.
  if (type === 'anthropic' && !/\/v1$/.test(path)) path += '/v1';
  return `${url.protocol}//${url.username ? `${url.username}@` : ''}${url.host}${path}${url.search}`;
}

/** A target as shown in an error: never with user info. */
const shown = (target: string) => target.replace(/\/\/[^/@]*@/, '//');

export class KeyUrls {
  private map: Record<string, string> = {};

  constructor(private readonly home: Home) {}

  async load(): Promise<void> {
    const stored = await this.home.readJson<{ keys?: unknown }>(KEY_URLS_FILE, {});
    const keys = stored.keys && typeof stored.keys === 'object' && !Array.isArray(stored.keys) ? (stored.keys as Record<string, unknown>) : {};
    this.map = Object.fromEntries(Object.entries(keys).filter((e): e is [string, string] => typeof e[1] === 'string'));
  }

  get(secretName: string): string | undefined {
    return this.map[secretName];
  }

  async set(secretName: string, target: string): Promise<void> {
    this.map = { ...this.map, [secretName]: target };
    await this.save();
  }

  async delete(secretName: string): Promise<void> {
    if (!(secretName in this.map)) return;
    const { [secretName]: _gone, ...rest } = this.map;
    this.map = rest;
    await this.save();
  }

  private save(): Promise<void> {
    return this.home.writeJson(KEY_URLS_FILE, { keys: this.map }, 0o600);
  }

  /** Throws when a key bound to `bound` would be sent to `target`. */
  static refuseElsewhere(provider: string, bound: string | undefined, target: string): void {
    if (bound === target) return;
    if (bound === undefined) {
      throw badRequest(`provider "${provider}" has a stored key but no recorded URL; send the key again (newKey) with the baseUrl it belongs to`);
    }
    throw badRequest(
      `the stored key of provider "${provider}" belongs to ${shown(bound)} and is never sent to ${shown(target)}; send the key again as newKey to use it with this URL`,
    );
  }
}
