/** The version store other capabilities record into and register adapters with (types only). */
export type HistoryKind = 'agent' | 'skill' | 'workflow' | 'dashboard' | 'widget' | 'atlas';
export const HISTORY_KINDS: readonly HistoryKind[] = ['agent', 'skill', 'workflow', 'dashboard', 'widget', 'atlas'];

/** How the history reaches the live item of one kind: read its current text, write a restored one. */
export interface HistoryAdapter {
  /** The item's current text, or undefined when it does not exist. */
  read(name: string): Promise<string | undefined>;
  /** Replaces the item with `content` (the owning capability re-validates, re-indexes, emits ...). */
  write(name: string, content: string): Promise<void>;
}

export interface VersionInfo {
  /** 1, 2, 3 ... per item. */
  version: number;
  ts: number;
  note?: string;
  bytes: number;
  sha256: string;
}

export interface VersionContent extends VersionInfo {
  kind: HistoryKind;
  name: string;
  content: string;
}

export interface HistoryRecorder {
  /** Records a version (skipped when it equals the latest one); capabilities call this on every save. */
  record(kind: HistoryKind, name: string, content: string, note?: string): Promise<VersionInfo>;
  registerAdapter(kind: HistoryKind, adapter: HistoryAdapter): void;
}

/** Where the versions of a kind are kept: the home's history folder, or (workflows in a pool) its database. */
export interface HistoryShelf {
  versions(kind: HistoryKind, name: string): Promise<VersionInfo[]>;
  content(kind: HistoryKind, name: string, version: number): Promise<string | undefined>;
  /** Adds `info` with its content; `kept` is the whole list after it, `pruned` the versions dropped. */
  add(kind: HistoryKind, name: string, info: VersionInfo, content: string, kept: VersionInfo[], pruned: VersionInfo[]): Promise<void>;
}
