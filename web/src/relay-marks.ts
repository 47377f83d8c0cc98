/**
 * The relay's replay marks of this browser (issue 39): the last counter accepted from each engine,
 * kept in IndexedDB so that a reload does not start from zero, when the broker's operator could
 * otherwise hand the page any frame it kept from before. Writes are coalesced (frames arrive in
 * bursts; only the newest counter matters); without IndexedDB (a private window that refuses it)
 * the mark lives as long as the page, as before.
 */
import type { ReplayMarks } from '../../src/capabilities/relay/phone-client';

const DB = 'engine-relay';
const STORE = 'marks';

let db: Promise<IDBDatabase | null> | undefined;
function open(): Promise<IDBDatabase | null> {
  return (db ??= new Promise((resolve) => {
    try {
      const req = indexedDB.open(DB, 1);
      req.onupgradeneeded = () => req.result.createObjectStore(STORE);
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => resolve(null);
    } catch {
      resolve(null);
    }
  }));
}

/** Newest counter per engine not yet written, and whether a write is under way. */
const unsaved = new Map<string, number>();
let writing = false;

async function flush(): Promise<void> {
  const store = await open();
  if (!store || writing) return;
  writing = true;
  try {
    while (unsaved.size) {
      const batch = [...unsaved];
      unsaved.clear();
      await new Promise<void>((resolve) => {
        const tx = store.transaction(STORE, 'readwrite');
        for (const [engine, counter] of batch) tx.objectStore(STORE).put(counter, engine);
        tx.oncomplete = tx.onerror = tx.onabort = () => resolve();
      });
    }
  } finally {
    writing = false;
  }
}

export const browserMarks: ReplayMarks = {
  async load(engine) {
    const store = await open();
    if (!store) return 0;
    return new Promise((resolve) => {
      const req = store.transaction(STORE, 'readonly').objectStore(STORE).get(engine);
      req.onsuccess = () => resolve(typeof req.result === 'number' ? req.result : 0);
      req.onerror = () => resolve(0);
    });
  },
  save(engine, counter) {
    if (counter <= (unsaved.get(engine) ?? 0)) return;
    unsaved.set(engine, counter);
    void flush();
  },
};
