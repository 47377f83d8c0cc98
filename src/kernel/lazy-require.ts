/**
 * A package loaded on first use with a plain `require`. Used for megabytes of dependencies no
 * start needs (model SDKs, the MCP SDK, database drivers, html-to-text): a `require` whose name is
 * only known at run time stays out of the bundle (scripts/bundle.mjs), so a start neither parses
 * nor keeps their source (bench/startup, bench/memory), and it works inside the vm-loaded bundle,
 * where a dynamic `import()` of a package cannot run without --experimental-vm-modules.
 */
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load(id) as T);
}
