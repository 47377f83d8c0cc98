/**
 * The pool's small stores, each the database side of an interface its capability declares: cron
 * state (the last fire of each trigger), notifications, the permission rules and unattended default
 * (one row, changed under a row lock so two engines never lose each other's rule), and the
 * workflows' version history.
 */
import type { HistoryShelf, VersionInfo } from '../capabilities/history/types.js';
import type { NotificationRecord, NotificationsBackend } from '../capabilities/notifications/types.js';
import type { CronStateStore } from '../capabilities/workflows/types.js';
import { LIMITS } from '../kernel/limits.js';
import type { PermissionsFile, RulesBackend } from '../permissions/rules.js';
import type { PoolDb } from './db.js';
import { SCHEMA } from './schema.js';

export function poolCronState(db: PoolDb): CronStateStore {
  return {
    async load() {
      const rows = await db.query<{ key: string; last: string }>(`SELECT key, last FROM ${SCHEMA}.cron_state`);
      return Object.fromEntries(rows.map((r) => [r.key, Number(r.last)]));
    },
    // Every engine arms the same timers and saves the same ticks: the latest one stays.
    async save(last) {
      const entries = Object.entries(last);
      if (!entries.length) return;
      await db.query(
        `INSERT INTO ${SCHEMA}.cron_state (key, last) SELECT * FROM unnest($1::text[], $2::bigint[]) ON CONFLICT (key) DO UPDATE SET last = GREATEST(${SCHEMA}.cron_state.last, EXCLUDED.last)`,
        [entries.map((e) => e[0]), entries.map((e) => e[1])],
      );
    },
  };
}

/** Notifications as rows; `watched` is handed the reload the table's trigger asks for. */
export function poolNotifications(db: PoolDb, watched: (reload: () => void) => void): NotificationsBackend {
  return {
    async load() {
      return (await db.query<{ record: NotificationRecord }>(`SELECT record FROM ${SCHEMA}.notifications ORDER BY ts, id`)).map((r) => r.record);
    },
    async add(record) {
      await db.tx(async (c) => {
        await c.query(`INSERT INTO ${SCHEMA}.notifications (id, record, ts) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`, [record.id, record, record.ts]);
        await c.query(`DELETE FROM ${SCHEMA}.notifications WHERE id IN (SELECT id FROM ${SCHEMA}.notifications ORDER BY ts DESC, id DESC OFFSET $1)`, [LIMITS.notificationsKept]);
      });
    },
    async markRead(id) {
      if (id === undefined) await db.query(`UPDATE ${SCHEMA}.notifications SET record = record || '{"read":true}' WHERE NOT (record->>'read')::boolean`);
      else await db.query(`UPDATE ${SCHEMA}.notifications SET record = record || '{"read":true}' WHERE id = $1`, [id]);
    },
    async remove(id) {
      await db.query(`DELETE FROM ${SCHEMA}.notifications WHERE id = $1`, [id]);
    },
    watch: (changed) => watched(changed),
  };
}

const RULES_KEY = 'permissions';

export function poolRules(db: PoolDb, watched: (reload: () => void) => void): RulesBackend {
  return {
    async read() {
      return (await db.query<{ value: Partial<PermissionsFile> }>(`SELECT value FROM ${SCHEMA}.settings WHERE key = $1`, [RULES_KEY]))[0]?.value ?? {};
    },
    update: (change) =>
      db.tx(async (c) => {
        await c.query(`INSERT INTO ${SCHEMA}.settings (key, value) VALUES ($1, '{}') ON CONFLICT (key) DO NOTHING`, [RULES_KEY]);
        const current = (await c.query<{ value: Partial<PermissionsFile> }>(`SELECT value FROM ${SCHEMA}.settings WHERE key = $1 FOR UPDATE`, [RULES_KEY])).rows[0]?.value ?? {};
        const next = change(current);
        await c.query(`UPDATE ${SCHEMA}.settings SET value = $2 WHERE key = $1`, [RULES_KEY, next]);
        return next;
      }),
    watch: (changed) => watched(changed),
  };
}

export function poolHistory(db: PoolDb): HistoryShelf {
  return {
    async versions(kind, name) {
      return (await db.query<{ info: VersionInfo }>(`SELECT info FROM ${SCHEMA}.history WHERE kind = $1 AND name = $2 ORDER BY version`, [kind, name])).map((r) => r.info);
    },
    async content(kind, name, version) {
      return (await db.query<{ content: string }>(`SELECT content FROM ${SCHEMA}.history WHERE kind = $1 AND name = $2 AND version = $3`, [kind, name, version]))[0]?.content;
    },
    async add(kind, name, info, content, _kept, pruned) {
      await db.tx(async (c) => {
        // Two engines saving the same workflow at once: the second version takes the next number.
        await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`history ${kind} ${name}`]);
        const top = Number((await c.query<{ top: number | null }>(`SELECT max(version) AS top FROM ${SCHEMA}.history WHERE kind = $1 AND name = $2`, [kind, name])).rows[0]?.top ?? 0);
        if (top >= info.version) info.version = top + 1;
        await c.query(`INSERT INTO ${SCHEMA}.history (kind, name, version, info, content) VALUES ($1, $2, $3, $4, $5)`, [kind, name, info.version, info, content]);
        if (pruned.length) await c.query(`DELETE FROM ${SCHEMA}.history WHERE kind = $1 AND name = $2 AND version = ANY($3::int[])`, [kind, name, pruned.map((p) => p.version)]);
      });
    },
  };
}
