/**
 * Watches every root with @parcel/watcher and emits `fs.changed` for changes made from outside the
 * engine, batched. The engine's own writes emit their own events (`file.written` ...) and are
 * filtered out here through `isOwnWrite`. Re-armed whenever a folder is mounted or unmounted.
 */
import watcher, { type AsyncSubscription, type Event } from '@parcel/watcher';
import type { Emit } from '../../kernel/bus.js';
import type { Fence } from '../../kernel/fence.js';
import { LIMITS } from '../../kernel/limits.js';

export interface FileWatcher {
  rearm(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Also this process's own temp files (`<name>.<pid>.<8 hex>.tmp`, pins.writeAtomic and
 * writeFileAtomic): isOwnWrite drops their events anyway, and ignored here the watcher thread does
 * not stat them or queue an event for them (three of the five events of every write; bench/files-write).
 */
const IGNORE = ['.git', 'node_modules', '**/.git/**', '**/node_modules/**', new RegExp(`\\.${process.pid}\\.[0-9a-f]{8}\\.tmp$`)];

/**
 * The platform's own backend, named: left to choose, @parcel/watcher first probes for watchman by
 * running `sh -c watchman ...` and never reaps that child, so every subscribe left a defunct `sh`.
 */
const BACKEND: watcher.BackendType | undefined =
  process.platform === 'linux' ? 'inotify' : process.platform === 'darwin' ? 'fs-events' : process.platform === 'win32' ? 'windows' : undefined;

export function createFileWatcher(deps: {
  fence: Fence;
  emit: Emit;
  isOwnWrite: (real: string) => boolean;
  log: (line: string) => void;
}): FileWatcher {
  let subs: AsyncSubscription[] = [];
  let pending = new Map<string, string>();
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  let closed = false;

  const flush = () => {
    timer = undefined;
    if (!pending.size) return;
    const changes = [...pending].map(([path, type]) => ({ type, path }));
    pending = new Map();
    deps.emit('fs.changed', { changes, paths: changes.map((c) => c.path) });
  };

  const onEvents = (events: Event[]) => {
    for (const e of events) {
      if (deps.isOwnWrite(e.path)) continue;
      if (deps.fence.isProtected(e.path)) continue; // engine state (run logs ...) under a mount holding the home
      const virtual = deps.fence.toVirtual(e.path);
      if (virtual === undefined || virtual === '') continue;
      pending.set(virtual, e.type);
    }
    if (pending.size && !timer) timer = setTimeout(flush, LIMITS.watcherBatchMs);
  };

  const unsubscribeAll = async () => {
    const old = subs;
    subs = [];
    await Promise.all(old.map((s) => s.unsubscribe().catch(() => undefined)));
  };

  const arm = async () => {
    await unsubscribeAll();
    if (closed) return;
    for (const root of deps.fence.roots()) {
      try {
        const sub = await watcher.subscribe(
          root.path,
          (err, events) => {
            if (err) deps.log(`file watcher on ${root.name}: ${err.message}`);
            else onEvents(events);
          },
          { ignore: IGNORE, ...(BACKEND ? { backend: BACKEND } : {}) },
        );
        subs.push(sub);
      } catch (err) {
        deps.log(`file watcher could not watch ${root.name} (${root.path}): ${(err as Error).message}`);
      }
    }
  };

  return {
    rearm() {
      chain = chain.then(arm, arm);
      return chain;
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await chain.catch(() => undefined);
      await unsubscribeAll();
    },
  };
}
