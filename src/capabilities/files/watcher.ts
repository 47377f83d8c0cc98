/**
 * Watches every root by its folders (folder-watch.ts) and emits `fs.changed` for changes made from
 * outside the engine, batched. The engine's own writes emit their own events (`file.written` ...) and are
 * filtered out here through `isOwnWrite`. Re-armed whenever a folder is mounted or unmounted.
 */
import type { Emit } from '../../kernel/bus.js';
import type { Fence } from '../../kernel/fence.js';
import { LIMITS } from '../../kernel/limits.js';
import { watchTree, type ChangeType, type TreeWatch } from './folder-watch.js';

export interface FileWatcher {
  rearm(): Promise<void>;
  close(): Promise<void>;
}

/** Never watched nor reported: version control and dependencies, at any depth. */
const IGNORED_NAMES = new Set(['.git', 'node_modules']);
/**
 * This process's own temp files (`<name>.<pid>.<8 hex>.tmp`, pins.writeAtomic and writeFileAtomic):
 * isOwnWrite drops their events anyway; skipped by name, they cost no `lstat` (three of the five
 * events of every write; bench/files-write).
 */
const OWN_TEMP = new RegExp(`\\.${process.pid}\\.[0-9a-f]{8}\\.tmp$`);

export function createFileWatcher(deps: {
  fence: Fence;
  emit: Emit;
  isOwnWrite: (real: string) => boolean;
  log: (line: string) => void;
}): FileWatcher {
  let trees: TreeWatch[] = [];
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

  const onChange = (type: ChangeType, abs: string) => {
    if (deps.isOwnWrite(abs)) return;
    const virtual = deps.fence.toVirtual(abs);
    if (virtual === undefined || virtual === '') return;
    pending.set(virtual, type);
    if (!timer) timer = setTimeout(flush, LIMITS.watcherBatchMs);
  };
  // Engine state (run logs ...) under a mount holding the home is neither watched nor reported.
  const ignore = (abs: string, name: string) => IGNORED_NAMES.has(name) || OWN_TEMP.test(name) || deps.fence.isProtected(abs);

  const unwatchAll = () => {
    for (const t of trees) t.close();
    trees = [];
  };

  const arm = async () => {
    unwatchAll();
    for (const root of deps.fence.roots()) {
      if (closed) return;
      try {
        trees.push(await watchTree(root.path, { ignore, onChange, log: deps.log }));
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
      unwatchAll();
    },
  };
}
