/**
// needs: better-sqlite3 (the shared database helpers load it)
 * The read-only corpus of issues 24 and 39 (test/db/corpus.ts) on a real MariaDB: each lock alone (the read-only transaction removed, then the classifier), and the privileged-role warning.
 * One file per engine and part keeps each well under the runner's ceiling on a loaded machine.
 */
import { corpusSuite } from './corpus.js';

corpusSuite('mysql', 'locks');
