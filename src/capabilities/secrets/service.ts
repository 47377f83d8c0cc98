/**
 * The secret store: the OS keychain through @napi-rs/keyring when a probe set/get/delete round trip
 * works, else an encrypted file in the home. A names index (secrets-index.json, names only) is kept
 * for both, because a keychain cannot list. Values never leave through a route, an event or a log.
 */
import { createHash } from 'node:crypto';
import type { Bus } from '../../kernel/bus.js';
import { describeError } from '../../kernel/errors.js';
import { HOME_LAYOUT, type Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import { FileVault } from './file-store.js';
import { validSecretName, validSecretValue } from './names.js';
import type { SecretBackend, SecretStore } from './types.js';

/** `auto` probes the keychain; `file` and `keychain` force one (tests force `file`). */
export type SecretsBackendChoice = 'auto' | SecretBackend;

interface Backend {
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
  /** Every value at once (the file backend decrypts once instead of once a name). */
  all?(names: string[]): Promise<string[]>;
}

type KeyringModule = typeof import('@napi-rs/keyring');

export async function createSecretStore(deps: { home: Home; bus: Bus; log: (line: string) => void; backend?: SecretsBackendChoice }): Promise<SecretStore> {
  const { home, bus, log } = deps;
  const choice = deps.backend ?? 'auto';
  // One keychain service per home, so two homes never share or clobber each other's secrets.
  const service = `workbench-engine.${createHash('sha256').update(home.root).digest('hex').slice(0, 12)}`;
  let backendName: SecretBackend = 'file';
  let backend: Backend = fileBackend(home);
  if (choice !== 'file') {
    const keychain = await probeKeychain(service);
    if (keychain) {
      backendName = 'keychain';
      backend = keychain;
    } else if (choice === 'keychain') {
      log('secrets: the OS keychain did not answer a probe; using the encrypted file in the home instead');
    }
  }

  let names = new Set<string>(await readIndex(home));
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work);
    queue = next.catch(() => undefined);
    return next;
  };
  const saveIndex = () => home.writeJson(HOME_LAYOUT.secretsIndex, { backend: backendName, names: [...names].sort() });

  return {
    backend: backendName,
    async get(name) {
      validSecretName(name);
      return names.has(name) ? backend.get(name) : undefined;
    },
    set(name, value) {
      validSecretName(name);
      validSecretValue(value);
      return serial(async () => {
        await backend.set(name, value);
        const added = !names.has(name);
        names.add(name);
        if (added) await saveIndex();
        bus.emit('secrets.changed', { name, action: 'set' });
      });
    },
    delete(name) {
      validSecretName(name);
      return serial(async () => {
        if (!names.has(name)) return false;
        await backend.delete(name);
        names = new Set([...names].filter((n) => n !== name));
        await saveIndex();
        bus.emit('secrets.changed', { name, action: 'deleted' });
        return true;
      });
    },
    async names() {
      return [...names].sort();
    },
    async values() {
      const list = [...names];
      if (backend.all) return backend.all(list);
      const out: string[] = [];
      for (const n of list) {
        const v = await backend.get(n).catch(() => undefined);
        if (v) out.push(v);
      }
      return out;
    },
  };
}

async function readIndex(home: Home): Promise<string[]> {
  const index = await home.readJson<{ names?: unknown }>(HOME_LAYOUT.secretsIndex, {});
  return Array.isArray(index.names) ? index.names.filter((n): n is string => typeof n === 'string') : [];
}

function fileBackend(home: Home): Backend {
  const vault = new FileVault(home);
  return {
    async get(name) {
      return (await vault.read())[name];
    },
    async set(name, value) {
      const all = await vault.read();
      all[name] = value;
      await vault.write(all);
    },
    async delete(name) {
      const all = await vault.read();
      delete all[name];
      await vault.write(all);
    },
    async all(names) {
      const all = await vault.read();
      return names.map((n) => all[n]).filter((v): v is string => !!v);
    },
  };
}

/** A keychain that cannot do a full set/get/delete round trip in time is not used at all. */
async function probeKeychain(service: string): Promise<Backend | undefined> {
  let mod: KeyringModule;
  try {
    mod = await import('@napi-rs/keyring');
  } catch {
    return undefined;
  }
  const { AsyncEntry } = mod;
  const withTimeout = <T>(p: Promise<T>): Promise<T> =>
    Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('keychain timeout')), LIMITS.keychainProbeMs).unref())]);
  try {
    const probe = new AsyncEntry(service, '.probe');
    const marker = `probe-${process.pid}-${Date.now()}`;
    await withTimeout(probe.setPassword(marker));
    const back = await withTimeout(probe.getPassword());
    await withTimeout(probe.deletePassword());
    if (back !== marker) return undefined;
  } catch (err) {
    void describeError(err);
    return undefined;
  }
  return {
    async get(name) {
      return (await new AsyncEntry(service, name).getPassword()) ?? undefined;
    },
    async set(name, value) {
      await new AsyncEntry(service, name).setPassword(value);
    },
    async delete(name) {
      await new AsyncEntry(service, name).deletePassword();
    },
  };
}
