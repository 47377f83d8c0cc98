/**
 * connections.json held in memory. Every lookup of a connection (each query, page and export)
 * used to open, read and parse the file; now the parsed copy answers, replaced at once when the
 * engine writes the file. The file is still the truth: each read compares its stat signature
 * (inode, size, change and modification times in nanoseconds), one system call, so a hand edit or
 * a restore from a backup is noticed on the next lookup, as before.
 */
import fs from 'node:fs/promises';
import type { Home } from '../../kernel/home.js';

export interface JsonFile<T> {
  /** The current contents. Shared: read it, never change it (copy, then `write`). */
  read(): Promise<T>;
  write(value: T): Promise<void>;
}

export function cachedJsonFile<T>(home: Home, file: string, empty: () => T): JsonFile<T> {
  const target = home.path(file);
  let cached: { signature: string; value: T } | undefined;

  const signature = async (): Promise<string> => {
    try {
      const st = await fs.stat(target, { bigint: true });
      return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
      throw err;
    }
  };

  return {
    async read() {
      const now = await signature();
      if (cached?.signature === now) return cached.value;
      // Taken before the read: if the file changes in between, the next lookup sees another
      // signature and reads again.
      const value = await home.readJson<T>(file, empty());
      cached = { signature: now, value };
      return value;
    },
    async write(value) {
      cached = undefined; // a failed write leaves nothing stale behind
      await home.writeJson(file, value);
      cached = { signature: await signature(), value };
    },
  };
}
