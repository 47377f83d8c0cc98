/**
 * Watches a tree by its folders, not its files (issue 42): on Linux one inotify watch (`fs.watch`)
 * per folder, armed as folders appear and dropped by prefix as they go; elsewhere one recursive
 * `fs.watch` on the root (FSEvents on macOS, ReadDirectoryChangesW on Windows). Nothing is kept per
 * file: an event names its entry, and an `lstat` tells whether it came or went. Memory grows with
 * folders (about 1.6 kB each), where @parcel/watcher kept about 300 B for every file.
 *
 * A folder that appears (made, or moved in from elsewhere) is walked once: its files are reported
 * as created, and its folders watched. A folder that goes is reported once, by its own path: the
 * consumers drop what they had under it (the vault and code indexes, the atlas).
 */
import { watch, type FSWatcher } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';

export type ChangeType = 'create' | 'update' | 'delete';

export interface TreeWatchOptions {
  /** True for a path never watched nor reported (`.git`, `node_modules`, the engine's own state). */
  ignore(abs: string, name: string): boolean;
  onChange(type: ChangeType, abs: string): void;
  log(line: string): void;
}

export interface TreeWatch {
  close(): void;
}

/** Resolves once every folder of the tree that exists now is watched. */
export async function watchTree(root: string, options: TreeWatchOptions): Promise<TreeWatch> {
  // A root that is gone (a mount whose folder was removed) is the caller's sentence, not a silent nothing.
  if (!(await stat(root).catch(() => undefined))?.isDirectory()) throw new Error('the folder does not exist');
  return process.platform === 'linux' ? watchFolders(root, options) : watchRecursive(root, options);
}

async function watchFolders(root: string, options: TreeWatchOptions): Promise<TreeWatch> {
  const watches = new Map<string, FSWatcher>();
  let closed = false;
  let full = false;
  // Entries heard of and not yet looked at, one per path: a storm of events on a few paths (a
  // process flipping a link thousands of times a second) costs a few entries, not a queue that grows.
  const heard = new Map<string, { dir: string; name: string; renamed: boolean }>();
  let draining: Promise<void> | undefined;

  const hear = (dir: string, type: string, name: string) => {
    const abs = path.join(dir, name);
    heard.set(abs, { dir, name, renamed: type === 'rename' || !!heard.get(abs)?.renamed });
    draining ??= drain();
  };

  async function drain(): Promise<void> {
    try {
      while (heard.size && !closed) {
        const batch = [...heard.values()];
        heard.clear();
        for (const h of batch) await onEvent(h.dir, h.renamed, h.name).catch((err) => options.log(`file watcher: ${(err as Error).message}`));
      }
    } finally {
      draining = undefined;
    }
  }

  /** Stops watching a folder that went, and the folders under it (a scan only for a folder that was watched). */
  const drop = (folder: string) => {
    if (!watches.has(folder)) return;
    for (const [dir, w] of watches) {
      if (dir === folder || dir.startsWith(folder + path.sep)) {
        w.close();
        watches.delete(dir);
      }
    }
  };

  /** Watches one folder; false when it is watched already, the watcher closed, or it cannot be watched. */
  function watchOne(dir: string): boolean {
    if (closed || watches.has(dir)) return false;
    try {
      const w = watch(dir, { persistent: false }, (type, name) => name !== null && hear(dir, type, String(name)));
      w.on('error', () => (w.close(), watches.delete(dir)));
      watches.set(dir, w);
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' && !full) {
        full = true;
        options.log(`file watcher: the system's limit of inotify watches (fs.inotify.max_user_watches) is reached at ${watches.size} folders; changes in folders past it are not seen`);
      }
      if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'ENOSPC') options.log(`file watcher could not watch ${dir}: ${(err as Error).message}`);
      return false;
    }
  }

  /** Watches `folder` and every folder under it, each before it is read (an entry made between the two is an event, not missed). */
  const arm = (folder: string, report: boolean) => walkTree(folder, options, report, watchOne);

  /** Looks at one entry heard of: changed in place, or (renamed) come or gone. */
  async function onEvent(dir: string, renamed: boolean, name: string): Promise<void> {
    if (closed || !watches.has(dir)) return;
    const abs = path.join(dir, name);
    if (options.ignore(abs, name)) return;
    if (!renamed) return options.onChange('update', abs);
    const st = await lstat(abs).catch(() => undefined);
    if (closed) return;
    if (!st) {
      // The watched folder itself went (inotify names it in its own watch): its parent reports it.
      if (name === path.basename(dir) && !(await lstat(dir).catch(() => undefined))) return drop(dir);
      drop(abs);
      return options.onChange('delete', abs);
    }
    options.onChange('create', abs);
    if (st.isDirectory()) await arm(abs, true);
  }

  await arm(root, false);
  return {
    close() {
      closed = true;
      for (const w of watches.values()) w.close();
      watches.clear();
    },
  };
}

function watchRecursive(root: string, options: TreeWatchOptions): TreeWatch {
  let closed = false;
  const heard = new Map<string, boolean>(); // path -> renamed (came or went), one entry per path as above
  let draining: Promise<void> | undefined;
  const drain = async () => {
    try {
      while (heard.size && !closed) {
        const batch = [...heard];
        heard.clear();
        for (const [abs, renamed] of batch) {
          if (!renamed) {
            options.onChange('update', abs);
            continue;
          }
          const st = await lstat(abs).catch(() => undefined);
          options.onChange(st ? 'create' : 'delete', abs);
          // A folder moved in: its entries are reported as the Linux watcher's walk reports them.
          if (st?.isDirectory()) await walkTree(abs, options, true);
        }
      }
    } finally {
      draining = undefined;
    }
  };
  const w = watch(root, { persistent: false, recursive: true }, (type, name) => {
    if (name === null) return;
    const parts = String(name).split(path.sep);
    if (parts.some((part, i) => options.ignore(path.join(root, ...parts.slice(0, i + 1)), part))) return;
    const abs = path.join(root, String(name));
    heard.set(abs, type === 'rename' || !!heard.get(abs));
    draining ??= drain().catch((err) => options.log(`file watcher: ${(err as Error).message}`));
  });
  w.on('error', (err) => options.log(`file watcher on ${root}: ${err.message}`));
  return {
    close() {
      closed = true;
      w.close();
    },
  };
}

/**
 * Walks a folder and every folder under it, leaving out what `ignore` names: `enter` is asked before
 * each folder is read (false: not read); with `report`, each entry found is reported as created.
 */
async function walkTree(folder: string, options: TreeWatchOptions, report: boolean, enter: (dir: string) => boolean = () => true): Promise<void> {
  const queue = [folder];
  while (queue.length) {
    const dir = queue.pop()!;
    if (!enter(dir)) continue;
    for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const abs = path.join(dir, e.name);
      if (options.ignore(abs, e.name)) continue;
      if (report) options.onChange('create', abs);
      if (e.isDirectory()) queue.push(abs);
    }
  }
}
