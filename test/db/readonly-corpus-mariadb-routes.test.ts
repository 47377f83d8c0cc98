/**
// needs: better-sqlite3 (the shared database helpers load it)
 * The read-only corpus of issues 24 and 39 (test/db/corpus.ts) on a real MariaDB: every entry on the person's route (and its explain mode), through db_query in ask mode, and through the export.
 * One file per engine and part keeps each well under the runner's ceiling on a loaded machine.
 */
import { corpusSuite } from './corpus.js';

corpusSuite('mysql', 'routes');
