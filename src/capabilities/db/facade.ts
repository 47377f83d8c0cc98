/** The database capability as engine.ts and the routes and tools see it. */
import { createExporter } from './export.js';
import { createQueryRunner } from './query.js';
import { createDbService, type DbServiceDeps } from './service.js';
import { createTableOps } from './table.js';

export function createDb(deps: DbServiceDeps) {
  const service = createDbService(deps);
  return {
    service,
    queries: createQueryRunner(service.core),
    tables: createTableOps(service.core),
    exportRows: createExporter(service.core),
    close: () => service.close(),
  };
}

export type DbFacade = ReturnType<typeof createDb>;
