/**
 * The pool's tables, in the schema `engine_pool` (pg-boss keeps its own, `pgboss`). Created on
 * first start under an advisory lock, so engines starting together do not race. Every table a
 * mirror follows announces its row changes with a trigger, so a row edited by hand (psql) is seen
 * at once, like a file the watcher reports.
 */
import type { PoolDb } from './db.js';
import { CHANNELS } from './db.js';

export const SCHEMA = 'engine_pool';

/** Tables whose row changes are announced as `{t: <table>, id: <key>}`, and the key column of each. */
const ANNOUNCED: Record<string, string> = { runs: 'run_id', workflows: 'id', gates: 'key', notifications: 'id', settings: 'key' };

const TABLES = `
CREATE SCHEMA IF NOT EXISTS ${SCHEMA};
CREATE TABLE IF NOT EXISTS ${SCHEMA}.engines (
  boot text PRIMARY KEY, worker text NOT NULL, url text NOT NULL, serves_only boolean NOT NULL,
  concurrency int NOT NULL, version text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(), seen_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS ${SCHEMA}.runs (
  run_id text PRIMARY KEY, record jsonb NOT NULL, status text NOT NULL, workflow_id text,
  top_level boolean NOT NULL, boot text, job text, tick text UNIQUE, started_at bigint NOT NULL);
-- How a child run ended (ChildEnd, masked), for a parent waiting on another engine.
ALTER TABLE ${SCHEMA}.runs ADD COLUMN IF NOT EXISTS result jsonb;
CREATE UNIQUE INDEX IF NOT EXISTS runs_one_per_workflow ON ${SCHEMA}.runs (workflow_id)
  WHERE top_level AND workflow_id IS NOT NULL AND status IN ('queued', 'running');
CREATE INDEX IF NOT EXISTS runs_running ON ${SCHEMA}.runs (boot) WHERE status = 'running';
CREATE TABLE IF NOT EXISTS ${SCHEMA}.run_events (id bigserial PRIMARY KEY, run_id text NOT NULL, line text NOT NULL);
CREATE INDEX IF NOT EXISTS run_events_by_run ON ${SCHEMA}.run_events (run_id, id);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.workflows (id text PRIMARY KEY, text text NOT NULL, author jsonb, updated_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS ${SCHEMA}.workflow_proposals (id text PRIMARY KEY, proposal jsonb NOT NULL);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.history (kind text NOT NULL, name text NOT NULL, version int NOT NULL, info jsonb NOT NULL, content text NOT NULL, PRIMARY KEY (kind, name, version));
CREATE TABLE IF NOT EXISTS ${SCHEMA}.gates (
  key text PRIMARY KEY, run_id text NOT NULL, node_id text NOT NULL, workflow_id text NOT NULL,
  message text NOT NULL, since bigint NOT NULL, boot text NOT NULL, answer jsonb);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.cron_state (key text PRIMARY KEY, last bigint NOT NULL);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.notifications (id text PRIMARY KEY, record jsonb NOT NULL, ts bigint NOT NULL);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.settings (key text PRIMARY KEY, value jsonb NOT NULL);
CREATE OR REPLACE FUNCTION ${SCHEMA}.announce() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('${CHANNELS.changes}', json_build_object('t', TG_TABLE_NAME, 'id',
    CASE WHEN TG_OP = 'DELETE' THEN to_jsonb(OLD) ->> TG_ARGV[0] ELSE to_jsonb(NEW) ->> TG_ARGV[0] END)::text);
  RETURN NULL;
END $$;
`;

export async function migrate(db: PoolDb): Promise<void> {
  await db.tx(async (c) => {
    await c.query("SELECT pg_advisory_xact_lock(hashtext('engine_pool schema'))");
    await c.query(TABLES);
    for (const [table, key] of Object.entries(ANNOUNCED)) {
      await c.query(`DROP TRIGGER IF EXISTS announce ON ${SCHEMA}.${table}`);
      await c.query(`CREATE TRIGGER announce AFTER INSERT OR UPDATE OR DELETE ON ${SCHEMA}.${table} FOR EACH ROW EXECUTE FUNCTION ${SCHEMA}.announce('${key}')`);
    }
  });
}
