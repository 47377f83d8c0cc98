/**
 * Notifications: a small store in <home>/notifications.json that any capability writes to through
 * `notify` (passed in by the composition root). Each new one is emitted as `notification`; reading
 * and dismissing emit `notifications.updated` with the unread count, so every client stays in step.
 */
import type { Bus } from '../../kernel/bus.js';
import { badRequest, describeError, notFound } from '../../kernel/errors.js';
import { HOME_LAYOUT, type Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import type { NotificationLevel, NotificationRecord, Notifier, NotifyInput } from './types.js';

const LEVELS: readonly NotificationLevel[] = ['info', 'success', 'warning', 'error'];

export interface NotificationsService extends Notifier {
  list(): { notifications: NotificationRecord[]; unreadCount: number };
  /** Marks one (by id) or, with no id, every notification read. */
  markRead(id?: string): Promise<{ ok: true; unreadCount: number }>;
  dismiss(id: string): Promise<{ ok: true; unreadCount: number }>;
}

export async function createNotificationsService(deps: { home: Home; bus: Bus; log: (line: string) => void }): Promise<NotificationsService> {
  const { home, bus, log } = deps;
  let items: NotificationRecord[] = []; // oldest first, as stored
  try {
    const stored = await home.readJson<{ notifications?: unknown }>(HOME_LAYOUT.notifications, {});
    if (Array.isArray(stored.notifications)) items = stored.notifications.filter(isRecord);
  } catch (err) {
    log(`notifications: ${describeError(err)}; starting with an empty list`);
  }
  let counter = 0;
  // writeJson serializes the text now and writes in call order (one queue per path in the home).
  const save = () => home.writeJson(HOME_LAYOUT.notifications, { notifications: items });
  const unread = () => items.reduce((n, i) => n + (i.read ? 0 : 1), 0);
  const changed = async () => {
    await save();
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
      await save();
      bus.emit('notification', { ...full, unreadCount: unread() });
      return full;
    },
    list() {
      return { notifications: [...items].reverse(), unreadCount: unread() };
    },
    async markRead(id) {
      if (id === undefined) for (const i of items) i.read = true;
      else find(id).read = true;
      return changed();
    },
    async dismiss(id) {
      const item = find(id);
      items = items.filter((i) => i !== item);
      return changed();
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
