/**
 * Generation settings with no portable AI SDK option (`extraBody`) are merged into the JSON
 * request body by the client's fetch. The per-call value travels in an AsyncLocalStorage, so one
 * client (built once per provider) serves callers with different extras.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const extraBodyStore = new AsyncLocalStorage<Record<string, unknown> | undefined>();

/** Runs `fn` so every provider request it makes carries `extraBody` merged into its JSON body. */
export function withExtraBody<T>(extraBody: Record<string, unknown> | undefined, fn: () => T): T {
  return extraBodyStore.run(extraBody, fn);
}

/** A fetch that merges the current extraBody (if any) into JSON request bodies. */
export const extraBodyFetch: typeof fetch = (input, init) => {
  const extra = extraBodyStore.getStore();
  if (extra && init && typeof init.body === 'string') {
    try {
      const body = JSON.parse(init.body) as Record<string, unknown>;
      init = { ...init, body: JSON.stringify({ ...body, ...extra }) };
    } catch {
      // Not JSON: send as is.
    }
  }
  return fetch(input, init);
};
