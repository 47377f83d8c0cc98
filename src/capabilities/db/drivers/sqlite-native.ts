/**
 * Where the compiled CSV writer for SQLite (the engine_csv_chunks table-valued function) lives (native/sqlite-csv.c, built by
 * scripts/build-native.mjs into dist/native/), from the sources, from dist/ and from the bundle.
 * Undefined when it was not built: exports then build their lines in SQL (same bytes, slower).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FILE = `sqlite-csv.${process.platform === 'darwin' ? 'dylib' : 'so'}`;

let found: string | null | undefined;

export function sqliteCsvExtension(): string | undefined {
  if (found === undefined) {
    const here = path.dirname(fileURLToPath(import.meta.url));
    const candidates = [
      path.join(here, '..', '..', '..', 'native', FILE), // dist/capabilities/db/drivers -> dist/native
      path.join(here, '..', 'native', FILE), // dist/bundle -> dist/native
      path.join(here, '..', '..', '..', '..', 'dist', 'native', FILE), // src/capabilities/db/drivers -> dist/native
    ];
    found = candidates.find((p) => existsSync(p)) ?? null;
  }
  return found ?? undefined;
}

/** For tests: connections opened after `false` use the SQL encoder, so both paths can be compared. */
export function useSqliteCsvExtension(on: boolean): void {
  found = on ? undefined : null;
}
