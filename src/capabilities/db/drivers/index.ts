/** One driver per engine behind one interface (types.ts `DbDriver`). */
import type { DbDriver, ResolvedConnection } from '../types.js';
import { createMysqlDriver } from './mysql.js';
import { createPostgresDriver } from './postgres.js';
import { createSqliteDriver } from './sqlite.js';

export function createDriver(conn: ResolvedConnection): DbDriver {
  switch (conn.engine) {
    case 'sqlite':
      return createSqliteDriver(conn);
    case 'postgres':
      return createPostgresDriver(conn);
    case 'mysql':
      return createMysqlDriver(conn);
  }
}
