/**
// needs: better-sqlite3 (the shared database helpers load it)
 * The read-only corpus of issues 24 and 39 (test/db/corpus.ts) on a real PostgreSQL: every entry on the person's route (and its explain mode), through db_query in ask mode, and through the export.
 * Half of the entries (every other one; the other half is readonly-corpus-postgres-routes-2.test.ts): one file per engine, part and half keeps each well under the runner's ceiling on a loaded machine.
 */
import { corpusSuite } from './corpus.js';

corpusSuite('postgres', 'routes', { index: 1, of: 2 });
