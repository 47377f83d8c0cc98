/**
 * `<home>/relay.json` (mode 0600, like mobile-token.json): the relay's settings (broker URL, on or
 * off, remote start), the engine's topic id and ECDH key, the current one-time pairing, and each
 * paired device's session keys and replay mark. It is kept apart from settings.json on purpose:
 * PUT /api/settings is open to the mobile token, and what a phone may do must not be widened there.
 */
import type { Home } from '../../kernel/home.js';
import { exportPublic, generateKeyPair, randomId, toB64u } from './protocol.js';

const RELAY_FILE = 'relay.json';

export interface StoredDevice {
  id: string;
  /** The random id in the device's topics (not its API id). */
  topic: string;
  name: string;
  pairedAt: number;
  lastSeenAt: number | null;
  /** Raw AES-GCM keys, base64url: phone to engine, engine to phone. */
  up: string;
  down: string;
  /** The highest counter accepted from the phone: anything at or below it is a replay. */
  lastUp: number;
}

export interface RelayFile {
  url: string | null;
  app: string | null;
  enabled: boolean;
  remoteStart: boolean;
  engine: string;
  /** The engine's ECDH P-256 key pair as JWK (the private one holds the public part); made on first enable. */
  key: JsonWebKey | null;
  pub: string | null;
  pairing: { id: string; secret: string };
  devices: StoredDevice[];
}

export const freshPairing = () => ({ id: randomId(), secret: toB64u(globalThis.crypto.getRandomValues(new Uint8Array(32))) });

export interface RelayStore {
  readonly file: RelayFile;
  /** Writes now (settings, devices). */
  save(): Promise<void>;
  /** Makes the engine's key pair if this home has none yet (the relay's first enable). */
  ensureKeys(): Promise<void>;
  /** Writes soon (replay marks, last seen): many requests, one write. */
  touch(): void;
  flush(): Promise<void>;
}

export async function loadRelayStore(home: Home, log: (line: string) => void): Promise<RelayStore> {
  let stored: Partial<RelayFile> = {};
  try {
    stored = await home.readJson<Partial<RelayFile>>(RELAY_FILE, {});
  } catch (err) {
    log(`relay: ${RELAY_FILE} is unreadable (${(err as Error).message}); starting with the relay off and no paired phones`);
  }
  // A home that never enabled the relay holds no key: the pair is made on the first enable.
  const file: RelayFile = {
    url: stored.url ?? null,
    app: stored.app ?? null,
    enabled: stored.enabled === true && !!stored.url && !!stored.key,
    remoteStart: stored.remoteStart === true,
    engine: stored.engine ?? randomId(),
    key: stored.key && stored.pub ? stored.key : null,
    pub: stored.key && stored.pub ? stored.pub : null,
    pairing: stored.pairing ?? freshPairing(),
    devices: Array.isArray(stored.devices) && stored.key ? stored.devices : [],
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> = Promise.resolve();
  const save = () => {
    if (timer) (clearTimeout(timer), (timer = undefined));
    writing = writing.then(() => home.writeJson(RELAY_FILE, file, 0o600)).catch((err) => log(`relay: could not write ${RELAY_FILE}: ${(err as Error).message}`));
    return writing;
  };
  return {
    file,
    save,
    async ensureKeys() {
      if (file.key) return;
      const pair = await generateKeyPair();
      file.key = await globalThis.crypto.subtle.exportKey('jwk', pair.privateKey);
      file.pub = await exportPublic(pair.publicKey);
      await save();
    },
    touch() {
      timer ??= setTimeout(() => void save(), 500);
      timer.unref?.();
    },
    flush: () => (timer ? save() : writing),
  };
}
