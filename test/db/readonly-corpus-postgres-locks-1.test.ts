/**
// needs: better-sqlite3 (the shared database helpers load it)
 * The read-only corpus of issues 24 and 39 (test/db/corpus.ts) on a real PostgreSQL: each lock alone (the read-only transaction removed, then the classifier), and the privileged-role warning.
 * Half of the entries (every other one; the other half is readonly-corpus-postgres-locks-2.test.ts): one file per engine, part and half keeps each well under the runner's ceiling on a loaded machine.
 */
import { corpusSuite } from './corpus.js';

corpusSuite('postgres', 'locks', { index: 1, of: 2 });
