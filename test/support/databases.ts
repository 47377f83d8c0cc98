/**
 * Real database servers for tests and benches: PostgreSQL (initdb + postgres) and MariaDB
 * (mariadb-install-db + mariadbd), each in a temp folder, on a free loopback port, as an
 * unprivileged user when we are root (PostgreSQL refuses to run as root; mariadbd drops to mysql).
 * Start one per test file in `before`, stop it in `after`. A server that cannot start fails loudly.
 * Without the Debian package (and only outside CI) `missing()` names the package so a test can skip.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { patience } from './patience.js';

export interface DbServer {
  engine: 'postgres' | 'mysql';
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  /** A URL with credentials (postgres:// or mysql://). */
  url: string;
  /** Connection fields for PUT /api/db/connections/<id>. */
  fields: { host: string; port: number; user: string; password: string; database: string };
  /** Superuser SQL straight through the driver, outside the engine (setup and checks). */
  admin(sql: string, params?: unknown[]): Promise<any[]>;
  /** The temp folder the server lives in (MariaDB: `files/` is its secure_file_priv). */
  dir: string;
  stop(): Promise<void>;
}

const PG_BIN = (() => {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base).filter((v) => existsSync(path.join(base, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(base, versions[0], 'bin') : undefined;
})();
const which = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout.trim() || undefined;

/** Why a server cannot be started here (missing package), or undefined. Under CI nothing is missing: a test fails instead. */
export function missing(engine: 'postgres' | 'mysql'): string | undefined {
  const absent = engine === 'postgres' ? !PG_BIN : !which('mariadbd') || !which('mariadb-install-db');
  if (!absent || process.env.CI) return undefined;
  return engine === 'postgres' ? 'PostgreSQL is not installed (apt-get install postgresql)' : 'MariaDB is not installed (apt-get install mariadb-server)';
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;
const userId = (name: string) => {
  const r = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const g = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  return r.status === 0 ? { uid: Number(r.stdout), gid: Number(g.stdout) } : undefined;
};

/** Runs a command as `user` when root (setpriv execs, so the pid is the server's own). */
const asUser = (user: string | undefined, cmd: string, args: string[]): [string, string[]] =>
  user ? ['setpriv', ['--reuid', user, '--regid', user, '--init-groups', '--', cmd, ...args]] : [cmd, args];

const live = new Set<ChildProcess>();
const killAll = () => {
  for (const p of live) p.kill('SIGKILL');
};
process.once('exit', killAll);
// A runner that stops us with a signal must not leave servers behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });
}

function run(cmd: string, args: string[], what: string): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status ?? r.signal}): ${(r.stderr || r.stdout || String(r.error)).slice(-2000)}`);
}

function startProcess(cmd: string, args: string[]): { child: ChildProcess; output: () => string } {
  let out = '';
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (out = (out + d).slice(-8000)));
  child.stderr!.on('data', (d) => (out = (out + d).slice(-8000)));
  live.add(child);
  child.once('exit', () => live.delete(child));
  return { child, output: () => out };
}

async function waitUntil(probe: () => Promise<void>, child: ChildProcess): Promise<void> {
  const limit = patience(60_000);
  const deadline = Date.now() + limit;
  let last: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before accepting connections`);
    try {
      // A probe that never answers (a half-open socket) must not outlast the deadline.
      let timer: NodeJS.Timeout | undefined;
      const stalled = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the probe did not answer within ${patience(10_000)} ms`)), patience(10_000))));
      await Promise.race([probe(), stalled]).finally(() => clearTimeout(timer));
      return;
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`did not accept connections within ${limit} ms (${(last as Error)?.message})`);
}

async function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts a server on a free port and waits until `ready` passes. A start that fails is tried again
 * on a new port, up to three times, each failure written to the test's output: freePort() closes
 * the port it found before the server binds it, and another process (two test files start servers
 * side by side) may take it in between. A failure that is not transient fails every attempt and is
 * thrown with the server's own words; `dir` is removed then.
 */
const START_ATTEMPTS = 3;

async function startOnFreePort(
  what: string,
  dir: string,
  spawnAt: (port: number) => { child: ChildProcess; output: () => string },
  ready: (child: ChildProcess) => Promise<void>,
): Promise<{ port: number; child: ChildProcess }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const { child, output } = spawnAt(port);
    try {
      await ready(child);
      return { port, child };
    } catch (err) {
      await stopProcess(child, 'SIGKILL');
      const failure = new Error(`${what} ${(err as Error).message}:\n${output().slice(-4000)}`);
      if (attempt >= START_ATTEMPTS) {
        await rm(dir, { recursive: true, force: true });
        throw failure;
      }
      process.stderr.write(`${what} failed to start (attempt ${attempt} of ${START_ATTEMPTS}), trying a new port: ${failure.message.slice(0, 2000)}\n`);
    }
  }
}

export async function startPostgres(): Promise<DbServer> {
  if (!PG_BIN) throw new Error('PostgreSQL is not installed: /usr/lib/postgresql/<version>/bin/initdb is missing (apt-get install postgresql)');
  const pg = (await import('pg')).default;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'engine-pg-'));
  const user = isRoot() ? 'postgres' : undefined;
  const ids = user ? userId(user) : undefined;
  if (user && !ids) throw new Error('running as root needs the "postgres" system user (created by the postgresql package) to run the server');
  const password = `pw-${Math.random().toString(36).slice(2)}-test`;
  await writeFile(path.join(dir, 'pw'), password + '\n');
  if (ids) {
    await chown(dir, ids.uid, ids.gid);
    await chown(path.join(dir, 'pw'), ids.uid, ids.gid);
  }
  const data = path.join(dir, 'data');
  run(...asUser(user, path.join(PG_BIN, 'initdb'), ['-D', data, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256', `--pwfile=${path.join(dir, 'pw')}`, '-E', 'UTF8', '--no-sync', '--no-instructions']), 'initdb');
  let port = 0;
  const admin = async (sql: string, params: unknown[] = [], database = 'test') => {
    const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database, connectionTimeoutMillis: 10_000 });
    await c.connect();
    try {
      return (await c.query(sql, params)).rows;
    } finally {
      await c.end();
    }
  };
  const started = await startOnFreePort(
    'postgres',
    dir,
    (p) =>
      startProcess(
        ...asUser(user, path.join(PG_BIN, 'postgres'), ['-D', data, '-k', dir, '-p', String((port = p)), '-h', '127.0.0.1', '-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'synchronous_commit=off', '-c', 'max_connections=60']),
      ),
    async (child) => {
      await waitUntil(() => admin('SELECT 1', [], 'postgres').then(() => undefined), child);
      // An attempt before this one may have got as far as creating it.
      if (!(await admin("SELECT 1 FROM pg_database WHERE datname = 'test'", [], 'postgres')).length) await admin('CREATE DATABASE test', [], 'postgres');
    },
  );
  const child = started.child;
  const base = { host: '127.0.0.1', port, user: 'postgres', password };
  return {
    engine: 'postgres',
    ...base,
    database: 'test',
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/test`,
    fields: { ...base, database: 'test' },
    dir,
    admin: (sql, params) => admin(sql, params),
    async stop() {
      await stopProcess(child, 'SIGINT'); // fast shutdown: ends sessions, checkpoints, exits
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function startMariaDb(): Promise<DbServer> {
  const mariadbd = which('mariadbd');
  const install = which('mariadb-install-db');
  if (!mariadbd || !install) throw new Error('MariaDB is not installed: mariadbd or mariadb-install-db is missing (apt-get install mariadb-server)');
  const mysql = (await import('mysql2/promise')).default;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'engine-maria-'));
  const user = isRoot() ? 'mysql' : undefined;
  const ids = user ? userId(user) : undefined;
  if (user && !ids) throw new Error('running as root needs the "mysql" system user (created by the mariadb-server package)');
  const data = path.join(dir, 'data');
  const files = path.join(dir, 'files'); // secure_file_priv: the only folder the server may write files in
  // A private temp folder: servers of test files running side by side shared /tmp, and one install
  // failed deleting its own temp table there ("Error on delete of '/tmp/#sql-temptable-...'").
  const tmp = path.join(dir, 'tmp');
  await mkdir(files);
  await mkdir(tmp);
  if (ids) {
    await chown(dir, ids.uid, ids.gid);
    await chown(files, ids.uid, ids.gid);
    await chown(tmp, ids.uid, ids.gid);
  }
  run(install, ['--no-defaults', `--datadir=${data}`, `--tmpdir=${tmp}`, '--auth-root-authentication-method=normal', '--skip-test-db', ...(user ? [`--user=${user}`] : [])], 'mariadb-install-db');
  const socket = path.join(dir, 'sock');
  const errorLog = path.join(dir, 'err.log');
  const password = `pw-${Math.random().toString(36).slice(2)}-test`;
  const rootOver = (database?: string) => mysql.createConnection({ socketPath: socket, user: 'root', database, multipleStatements: true });
  // The server writes its complaints to --log-error, not to its output.
  const withLog = (started: { child: ChildProcess; output: () => string }) => ({
    child: started.child,
    output: () => `${started.output()}${existsSync(errorLog) ? readFileSync(errorLog, 'utf8').slice(-4000) : ''}`,
  });
  const { port, child } = await startOnFreePort(
    'mariadbd',
    dir,
    (p) =>
      withLog(
        startProcess(mariadbd, [
          '--no-defaults',
          `--datadir=${data}`,
          `--socket=${socket}`,
          `--port=${p}`,
          '--bind-address=127.0.0.1',
          `--pid-file=${path.join(dir, 'pid')}`,
          `--secure-file-priv=${files}`,
          `--tmpdir=${tmp}`,
          '--skip-log-bin',
          '--innodb-buffer-pool-size=64M',
          '--innodb-log-file-size=16M',
          '--innodb-flush-log-at-trx-commit=0',
          '--skip-name-resolve',
          `--log-error=${errorLog}`,
          ...(user ? [`--user=${user}`] : []),
        ]),
      ),
    async (child) => {
      await waitUntil(async () => (await rootOver()).end(), child);
      const c = await rootOver();
      await c.query(
        `CREATE DATABASE IF NOT EXISTS test; CREATE OR REPLACE USER 'engine'@'127.0.0.1' IDENTIFIED BY '${password}'; GRANT ALL ON *.* TO 'engine'@'127.0.0.1' WITH GRANT OPTION; FLUSH PRIVILEGES;`,
      );
      await c.end();
    },
  );
  const base = { host: '127.0.0.1', port, user: 'engine', password };
  return {
    engine: 'mysql',
    ...base,
    database: 'test',
    url: `mysql://engine:${encodeURIComponent(password)}@127.0.0.1:${port}/test`,
    fields: { ...base, database: 'test' },
    dir,
    async admin(sql, params = []) {
      const c = await rootOver('test');
      try {
        const [rows] = await c.query(sql, params);
        return rows as any[];
      } finally {
        await c.end();
      }
    },
    async stop() {
      await stopProcess(child, 'SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
