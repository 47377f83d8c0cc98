/**
 * Pool tests' helpers: engines of one pool (in-process, each with its own home, all on one real
 * PostgreSQL), workflow documents, and polling a condition without a timing assertion.
 */
import { after, before } from 'node:test';
import { missing, startPostgres, type DbServer } from '../support/databases.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { until as patientUntil } from '../support/patience.js';

export async function poolEngine(databaseUrl: string, opts: { concurrency?: number; worker?: boolean; home?: string } = {}): Promise<TestEngine> {
  return startTestEngine({ databaseUrl, concurrency: opts.concurrency ?? 1, worker: opts.worker, ...(opts.home ? { home: opts.home } : {}) });
}

/**
 * A real PostgreSQL for the calling test file (started before its tests, stopped after them) and a
 * fresh database per call of `database`: a pool of its own for each test. `skip` says why not.
 */
export function postgresPerFile(): { skip: string | undefined; database(name: string): Promise<string>; server(): DbServer } {
  const skip = missing('postgres');
  let pg: DbServer | undefined;
  before(async () => {
    if (!skip) pg = await startPostgres();
  });
  after(async () => {
    await pg?.stop();
  });
  return {
    skip,
    server: () => pg!,
    async database(name) {
      await pg!.admin(`CREATE DATABASE ${name}`);
      return pg!.url.replace(/\/test$/, `/${name}`);
    },
  };
}

/** The support's `until`, at most a minute on a quiet machine: what one engine does reaches the others through the database. */
export const until = <T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, ms = 60_000): Promise<T> => patientUntil(what, probe, ms);

export const sleeper = (id: string, ms: number) => ({
  id,
  formatVersion: 2,
  group: null,
  nodes: [
    { id: 'go', type: 'trigger.manual' },
    { id: 'nap', type: 'wait', config: { ms } },
  ],
  edges: [{ from: 'go', to: 'nap' }],
});

export const gated = (id: string) => ({
  id,
  formatVersion: 2,
  group: null,
  state: { answer: { reducer: 'replace' } },
  nodes: [
    { id: 'go', type: 'trigger.manual' },
    { id: 'review', type: 'gate', config: { message: 'ship {{trigger.what}}?' } },
    { id: 'after', type: 'state', config: { key: 'answer', value: 'shipped' } },
  ],
  edges: [
    { from: 'go', to: 'review' },
    { from: 'review', to: 'after' },
  ],
});
