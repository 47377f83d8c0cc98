/**
 * The secret store as the engine hands it out: a value being stored reaches the exit mask
 * (src/kernel/redact.ts) before the store answers, so no response or event can overtake it.
 */
import type { Redactor } from '../../kernel/redact.js';
import type { SecretStore } from './types.js';

export function redactingSecrets(store: SecretStore, redactor: Redactor): SecretStore {
  return {
    get backend() {
      return store.backend;
    },
    get: (name) => store.get(name),
    set(name, value) {
      redactor.add(value);
      return store.set(name, value);
    },
    delete: (name) => store.delete(name),
    names: () => store.names(),
    values: () => store.values(),
  };
}
