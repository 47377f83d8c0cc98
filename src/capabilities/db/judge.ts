/**
 * Each server connection's judge: what its statements call, judged by that server's own catalog
 * (judge-pg.ts, judge-mysql.ts). SQLite has none: its functions are the engine's build of SQLite,
 * with extension loading off. A catalog that cannot be read judges nothing harmless.
 */
import type { StatementJudge } from './classify.js';
import { judgePgStatement } from './judge-pg.js';
import { createMysqlJudge } from './judge-mysql.js';
import { createPgCatalog } from './pg-catalog.js';
import type { PgNode } from './pg-parser.js';
import type { DbDriver } from './types.js';

export interface ConnectionJudge {
  judge: StatementJudge;
  /** Forget what was read from the catalog (after a write that may have made or replaced a function). */
  forget(): void;
}

export function createJudge(driver: DbDriver): ConnectionJudge | undefined {
  let made: ConnectionJudge;
  if (driver.engine === 'postgres') {
    const catalog = createPgCatalog(driver);
    made = {
      judge: async (s) => {
        const tree = s.tree as { kind: string; node: PgNode } | undefined;
        return tree && judgePgStatement(tree.kind, tree.node, catalog);
      },
      forget: () => catalog.forget(),
    };
  } else if (driver.engine === 'mysql') made = createMysqlJudge(driver);
  else return undefined;
  return {
    judge: (s) =>
      made.judge(s).catch((err: Error) => ({ class: 'write' as const, reason: `what it calls could not be judged: the server's catalog could not be read (${err.message})` })),
    forget: made.forget,
  };
}
