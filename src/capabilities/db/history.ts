/**
 * Query history per connection: `db/history/<id>.jsonl`, one whole line per call (who, when, how
 * long, rows, error). The SQL is masked before it is written; a password never reaches a line.
 * When a file holds twice the kept number of lines it is cut back atomically.
 */
import { promises as fs } from 'node:fs';
import { writeFileAtomic, type Home } from '../../kernel/home.js';
import { parseJsonl } from '../../kernel/jsonl.js';
import { LIMITS } from '../../kernel/limits.js';
import type { HistoryEntry } from './types.js';

export interface QueryHistory {
  append(id: string, entry: HistoryEntry): Promise<void>;
  /** Newest first. */
  list(id: string, limit?: number): Promise<HistoryEntry[]>;
  remove(id: string): Promise<void>;
}

export function createQueryHistory(home: Home, mask: (text: string) => string): QueryHistory {
  const file = (id: string) => home.path('db', 'history', `${id}.jsonl`);
  const counts = new Map<string, number>();
  const read = async (id: string): Promise<HistoryEntry[]> => {
    try {
      return parseJsonl<HistoryEntry>(await fs.readFile(file(id), 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  };
  return {
    append(id, entry) {
      const line = JSON.stringify({ ...entry, sql: mask(entry.sql).slice(0, LIMITS.dbHistorySqlChars), error: entry.error && mask(entry.error) }) + '\n';
      return home.serialize(file(id), async () => {
        await fs.mkdir(home.path('db', 'history'), { recursive: true });
        await fs.appendFile(file(id), line);
        let n = counts.get(id);
        if (n === undefined) n = (await read(id)).length;
        else n++;
        if (n >= LIMITS.dbHistoryKept * 2) {
          const kept = (await read(id)).slice(-LIMITS.dbHistoryKept);
          await writeFileAtomic(file(id), kept.map((e) => JSON.stringify(e) + '\n').join(''));
          n = kept.length;
        }
        counts.set(id, n);
      });
    },
    async list(id, limit = LIMITS.dbHistoryKept) {
      return (await read(id)).slice(-limit).reverse();
    },
    async remove(id) {
      counts.delete(id);
      await home.serialize(file(id), () => fs.rm(file(id), { force: true }));
    },
  };
}
