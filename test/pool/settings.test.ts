/** Pool mode's start settings: the URL checked without ever being echoed, the worker flags only with a pool. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseArgs } from '../../src/cli/args.js';
import { ConfigError, resolveSettings } from '../../src/cli/settings.js';

const env = { ENGINE_HOME: '/tmp/engine-settings-home' };

test('a database URL that is not PostgreSQL is refused with a sentence that never repeats it', () => {
  for (const url of ['mysql://u:sup3r-s3cret-pw@h/db', 'not a url sup3r-s3cret-pw', 'postgres://u:sup3r-s3cret-pw@/db']) {
    for (const [flags, source] of [[{ databaseUrl: url }, '--database-url'], [{}, 'ENGINE_DATABASE_URL']] as const) {
      const err = (() => {
        try {
          resolveSettings(flags, { ...env, ENGINE_DATABASE_URL: url });
        } catch (e) {
          return e as Error;
        }
      })();
      assert.ok(err instanceof ConfigError, `${url} is refused`);
      assert.ok(err.message.startsWith(source), err.message);
      assert.doesNotMatch(err.message, /sup3r-s3cret-pw/);
    }
  }
});

test('pool flags: a URL makes a worker of concurrency 4 unless told; --no-worker and --concurrency need a pool', () => {
  const url = 'postgres://engine:pw@db.internal:5432/engine';
  const parsed = parseArgs(['serve', '--database-url', url, '--concurrency', '2']);
  assert.deepEqual({ ...parsed.flags }, { databaseUrl: url, concurrency: '2' });
  const s = resolveSettings(parsed.flags, env);
  assert.deepEqual([s.databaseUrl, s.worker, s.concurrency], [url, true, 2]);
  assert.equal(resolveSettings({}, { ...env, ENGINE_DATABASE_URL: url }).concurrency, 4);
  assert.equal(resolveSettings(parseArgs(['serve', '--no-worker']).flags, { ...env, ENGINE_DATABASE_URL: url }).worker, false);
  assert.equal(resolveSettings({}, { ...env, ENGINE_DATABASE_URL: url, ENGINE_WORKER: '0' }).worker, false);
  assert.equal(resolveSettings({}, env).databaseUrl, undefined);
  assert.throws(() => resolveSettings({ noWorker: true }, env), /--no-worker applies to an engine of a pool/);
  assert.throws(() => resolveSettings({ concurrency: '0', databaseUrl: url }, env), /--concurrency 0 is not a number of runs; use 1-64/);
  assert.throws(() => resolveSettings({}, { ...env, ENGINE_DATABASE_URL: url, ENGINE_WORKER: 'yes' }), /ENGINE_WORKER=yes is not 0 or 1/);
});
