/**
 * The secret store: the OS keychain through @napi-rs/keyring when a probe set/get/delete round trip
 * works, else an encrypted file in the home. A names index (secrets-index.json, names only) is kept
 * for both, because a keychain cannot list. Values never leave through a route, an event or a log.
 */
import { createHash } from 'node:crypto';
import type { Bus } from '../../kernel/bus.js';
import { describeError } from '../../kernel/errors.js';
import { HOME_LAYOUT, type Home } from '../../kernel/home.js';
import { lazyRequire } from '../../kernel/lazy-require.js';
import { LIMITS } from '../../kernel/limits.js';
import { serialQueue } from '../../kernel/serial.js';
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
/**
 * A `require`, not `import()`: the engine runs as a vm-loaded bundle, where a dynamic `import()` of a
 * package throws (no --experimental-vm-modules), which silently kept every bundled engine off the
 * keychain. Loaded only by the probe, so a home that chose the file never loads the addon.
 */
const keyring = lazyRequire<KeyringModule>('@napi-rs/keyring');

export async function createSecretStore(deps: { home: Home; bus: Bus; log: (line: string) => void; backend?: SecretsBackendChoice }): Promise<SecretStore> {
  const { home, bus, log } = deps;
  const choice = deps.backend ?? 'auto';
  // One keychain service per home, so two homes never share or clobber each other's secrets.
  const service = `workbench-engine.${createHash('sha256').update(home.root).digest('hex').slice(0, 12)}`;
  const index = await readIndex(home);
  let names = new Set<string>(index.names);
  let backendName: SecretBackend = 'file';
  let backend: Backend = fileBackend(home);
  const saveIndex = () => home.writeJson(HOME_LAYOUT.secretsIndex, { backend: backendName, names: [...names].sort() });
  // The backend is sticky per home: a home that chose the file keeps it (no probe, and its secrets
  // never vanish because a keychain happens to answer today). The probe runs beside the rest of
  // start-up; every operation waits for it.
  const ready = (async () => {
    if (choice === 'file' || (choice === 'auto' && index.backend === 'file')) return;
    const keychain = await probeKeychain(service);
    if (keychain) {
      backendName = 'keychain';
      backend = keychain;
    } else if (choice === 'keychain' || index.backend === 'keychain') {
      log('secrets: the OS keychain did not answer a probe; using the encrypted file in the home instead');
    }
  })().then(async () => {
    // Record the choice so the next start skips the probe (and stays on the same backend).
    if (choice === 'auto' && index.backend !== backendName) await saveIndex().catch((err) => log(`secrets: ${describeError(err)}`));
  });

  const serial = serialQueue(ready);

  return {
    /** Final once any other method has resolved (they all wait for the probe). */
    get backend() {
      return backendName;
    },
    async get(name) {
      validSecretName(name);
      await ready;
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
      await ready;
      return [...names].sort();
    },
    async values() {
      await ready;
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

async function readIndex(home: Home): Promise<{ names: string[]; backend?: SecretBackend }> {
  const index = await home.readJson<{ names?: unknown; backend?: unknown }>(HOME_LAYOUT.secretsIndex, {});
  const names = Array.isArray(index.names) ? index.names.filter((n): n is string => typeof n === 'string') : [];
  const backend = index.backend === 'file' || index.backend === 'keychain' ? index.backend : undefined;
  return { names, backend };
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
    mod = keyring();
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
  } catch {
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
      // An entry already gone (removed in the OS keychain app) is what a delete wants anyway.
      await new AsyncEntry(service, name).deletePassword().catch(() => false);
    },
  };
}
