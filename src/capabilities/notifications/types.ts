/** The notification store other capabilities write to (types only). */
export type NotificationLevel = 'info' | 'success' | 'warning' | 'error';

export interface NotificationRecord {
  /** `ntf-<epoch_ms>-<n>` */
  id: string;
  title: string;
  body?: string;
  level: NotificationLevel;
  runId?: string;
  /** A client route or URL the notification points at (e.g. `/runs/<runId>`). */
  link?: string;
  /** Which capability raised it (workflow, gate, model, ...). */
  source?: string;
  ts: number;
  read: boolean;
}

export interface NotifyInput {
  title: string;
  body?: string;
  level?: NotificationLevel;
  runId?: string;
  link?: string;
  source?: string;
}

export interface Notifier {
  /** Stores a notification and emits `notification` with it. */
  notify(input: NotifyInput): Promise<NotificationRecord>;
}

/** Where notifications are kept: the home's notifications.json, or a pool's database (src/pool). */
export interface NotificationsBackend {
  /** Every stored notification, oldest first. */
  load(): Promise<NotificationRecord[]>;
  /** `all` is the whole list after the change (a file writes it; a database does the one change). */
  add(record: NotificationRecord, all: NotificationRecord[]): Promise<void>;
  markRead(id: string | undefined, all: NotificationRecord[]): Promise<void>;
  remove(id: string, all: NotificationRecord[]): Promise<void>;
  /** Changes made elsewhere (another engine of a pool) call `changed`. */
  watch?(changed: () => void): void;
}
