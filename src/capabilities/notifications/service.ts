/**
 * Notifications: a small store in <home>/notifications.json that any capability writes to through
 * `notify` (passed in by the composition root). Each new one is emitted as `notification`; reading
 * and dismissing emit `notifications.updated` with the unread count, so every client stays in step.
 * A pool keeps them in its database instead (src/pool/stores.ts), behind `NotificationsBackend`:
 * a change another engine made reloads the list here and is announced the same way.
 */
import type { Bus } from '../../kernel/bus.js';
import { badRequest, describeError, notFound } from '../../kernel/errors.js';
import { HOME_LAYOUT, type Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import { reloadLatest } from '../../kernel/serial.js';
import type { NotificationLevel, NotificationRecord, NotificationsBackend, Notifier, NotifyInput } from './types.js';

const LEVELS: readonly NotificationLevel[] = ['info', 'success', 'warning', 'error'];

export interface NotificationsService extends Notifier {
  list(): { notifications: NotificationRecord[]; unreadCount: number };
  /** Marks one (by id) or, with no id, every notification read. */
  markRead(id?: string): Promise<{ ok: true; unreadCount: number }>;
  dismiss(id: string): Promise<{ ok: true; unreadCount: number }>;
}

/** The home's notifications.json: every change writes the whole list (kept short: LIMITS.notificationsKept). */
export function fileNotifications(home: Home): NotificationsBackend {
  // writeJson serializes the text now and writes in call order (one queue per path in the home).
  const save = (all: NotificationRecord[]) => home.writeJson(HOME_LAYOUT.notifications, { notifications: all });
  return {
    async load() {
      const stored = await home.readJson<{ notifications?: unknown }>(HOME_LAYOUT.notifications, {});
      return Array.isArray(stored.notifications) ? stored.notifications.filter(isRecord) : [];
    },
    add: (_record, all) => save(all),
    markRead: (_id, all) => save(all),
    remove: (_id, all) => save(all),
  };
}

export async function createNotificationsService(deps: { home: Home; bus: Bus; log: (line: string) => void; backend?: NotificationsBackend }): Promise<NotificationsService> {
  const { bus, log } = deps;
  const backend = deps.backend ?? fileNotifications(deps.home);
  let items: NotificationRecord[] = []; // oldest first, as stored
  try {
    items = (await backend.load()).filter(isRecord);
  } catch (err) {
    log(`notifications: ${describeError(err)}; starting with an empty list`);
  }
  // Engines of a pool make ids side by side: each counts from a random point.
  let counter = deps.backend ? Math.floor(Math.random() * 2 ** 40) : 0;
  const unread = () => items.reduce((n, i) => n + (i.read ? 0 : 1), 0);
  // Another engine of a pool added, read or dismissed some: read the list again and say so here too.
  // One read at a time, the last after the newest change: two overlapping reads could land out of order.
  const reload = reloadLatest(async () => {
    const known = new Set(items.map((i) => i.id));
    items = (await backend.load()).filter(isRecord);
    for (const item of items) if (!known.has(item.id)) bus.emit('notification', { ...item, unreadCount: unread() });
    bus.emit('notifications.updated', { unreadCount: unread() });
  });
  backend.watch?.(() => void reload().catch((err) => log(`notifications: not read again: ${describeError(err)}`)));
  const changed = async (write: () => Promise<void>) => {
    await write();
    const unreadCount = unread();
    bus.emit('notifications.updated', { unreadCount });
    return { ok: true as const, unreadCount };
  };
  const find = (id: unknown) => {
    if (typeof id !== 'string' || !id) throw badRequest('id must be a notification id string; GET /api/notifications lists them');
    const item = items.find((i) => i.id === id);
    if (!item) throw notFound(`no notification ${id}; GET /api/notifications lists them`);
    return item;
  };

  return {
    async notify(input: NotifyInput) {
      const record = validate(input);
      const full: NotificationRecord = { id: `ntf-${Date.now()}-${++counter}`, ...record, ts: Date.now(), read: false };
      items.push(full);
      if (items.length > LIMITS.notificationsKept) items = items.slice(-LIMITS.notificationsKept);
      await backend.add(full, items);
      bus.emit('notification', { ...full, unreadCount: unread() });
      return full;
    },
    list() {
      return { notifications: [...items].reverse(), unreadCount: unread() };
    },
    async markRead(id) {
      if (id === undefined) for (const i of items) i.read = true;
      else find(id).read = true;
      return changed(() => backend.markRead(id, items));
    },
    async dismiss(id) {
      const item = find(id);
      items = items.filter((i) => i !== item);
      return changed(() => backend.remove(id, items));
    },
  };
}

function validate(input: NotifyInput): Omit<NotificationRecord, 'id' | 'ts' | 'read'> {
  if (!input || typeof input.title !== 'string' || !input.title.trim()) throw badRequest('a notification needs a title');
  const level = input.level ?? 'info';
  if (!LEVELS.includes(level)) throw badRequest(`level must be one of ${LEVELS.join(', ')}`);
  const out: Omit<NotificationRecord, 'id' | 'ts' | 'read'> = { title: input.title.slice(0, LIMITS.notificationTitleChars), level };
  if (typeof input.body === 'string' && input.body) out.body = input.body.slice(0, LIMITS.notificationBodyChars);
  if (typeof input.runId === 'string' && input.runId) out.runId = input.runId;
  if (typeof input.link === 'string' && input.link) out.link = input.link;
  if (typeof input.source === 'string' && input.source) out.source = input.source;
  return out;
}

function isRecord(v: unknown): v is NotificationRecord {
  const r = v as NotificationRecord;
  return !!r && typeof r === 'object' && typeof r.id === 'string' && typeof r.title === 'string';
}
