/**
 * <home>/push.json: the VAPID public key and one subscription per device, replaced atomically on
 * every change (owner-only: the auth secrets of the subscriptions are in it). The private key is not
 * here (keys.ts). A file that cannot be read is reported in the log and replaced at the next change.
 */
import { describeError } from '../../kernel/errors.js';
import type { Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import type { StoredSubscription } from './types.js';

const PUSH_FILE = 'push.json';

interface PushFile {
  publicKey?: string;
  subscriptions: StoredSubscription[];
}

export async function createPushStore(home: Home, log: (line: string) => void) {
  let file: PushFile = { subscriptions: [] };
  try {
    const stored = await home.readJson<Partial<PushFile>>(PUSH_FILE, {});
    file = {
      publicKey: typeof stored.publicKey === 'string' ? stored.publicKey : undefined,
      subscriptions: Array.isArray(stored.subscriptions) ? stored.subscriptions.filter(isSubscription) : [],
    };
  } catch (err) {
    log(`push: ${describeError(err)}; starting with no push subscriptions`);
  }
  const save = () => home.writeJson(PUSH_FILE, file, 0o600);

  return {
    publicKey: () => file.publicKey,
    /** A new key pair: the subscriptions made for the old public key cannot be pushed to any more. */
    async setPublicKey(publicKey: string): Promise<number> {
      const dropped = file.subscriptions.length;
      file = { publicKey, subscriptions: [] };
      await save();
      return dropped;
    },
    list: (): readonly StoredSubscription[] => file.subscriptions,
    /** Stores a device's subscription, replacing its earlier one and any other holder of the endpoint. */
    async put(sub: StoredSubscription): Promise<void> {
      const others = file.subscriptions.filter((s) => s.deviceId !== sub.deviceId && s.endpoint !== sub.endpoint);
      // The oldest go first past the bound.
      file.subscriptions = [...others, sub].slice(-LIMITS.pushDevicesMax);
      await save();
    },
    /** Removes the subscriptions matching `match`; returns them. */
    async remove(match: (s: StoredSubscription) => boolean): Promise<StoredSubscription[]> {
      const gone = file.subscriptions.filter(match);
      if (!gone.length) return gone;
      file.subscriptions = file.subscriptions.filter((s) => !match(s));
      await save();
      return gone;
    },
  };
}

function isSubscription(v: unknown): v is StoredSubscription {
  const s = v as StoredSubscription;
  return !!s && typeof s.deviceId === 'string' && typeof s.endpoint === 'string' && typeof s.keys?.p256dh === 'string' && typeof s.keys?.auth === 'string';
}
