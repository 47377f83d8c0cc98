/**
 * The gateway's bearer key: minted when the gateway is first widened to the network (or rotated on
 * request), stored only in the secret store, shown once in the answer that minted it. Later reads
 * show a fingerprint so a person can tell which key a client holds without seeing it again.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SecretStore } from '../secrets/types.js';

export const GATEWAY_KEY_SECRET = 'gateway.key';

export const fingerprint = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 8);

export class GatewayKey {
  /** The key in memory, so checking a caller never waits on the secret store. */
  private value: string | undefined;

  constructor(private readonly secrets: SecretStore) {}

  async load(): Promise<void> {
    this.value = await this.secrets.get(GATEWAY_KEY_SECRET);
  }

  get exists(): boolean {
    return this.value !== undefined;
  }

  get fingerprint(): string | null {
    return this.value === undefined ? null : fingerprint(this.value);
  }

  /** Mints a new key (replacing any old one) and returns it: the only time its value leaves. */
  async mint(): Promise<string> {
    const key = `wbe-${randomBytes(32).toString('base64url')}`;
    await this.secrets.set(GATEWAY_KEY_SECRET, key);
    this.value = key;
    return key;
  }

  matches(presented: string): boolean {
    if (this.value === undefined) return false;
    const a = Buffer.from(presented);
    const b = Buffer.from(this.value);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
