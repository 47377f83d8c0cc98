/**
 * Keys `<PREFIX>-<n>` from a counter that never hands out a number twice. The counter
 * (`counter.json`) is advanced before the item file exists, under the board's lock; the next number
 * is also never below the highest key the board's store knows (its last full read and every keyed
 * read since: no folder listing per create), so a counter lost or rolled back by git does not
 * reuse a key; and the item file is linked into place exclusively, so even an item made by hand or
 * by another process since cannot be overwritten (the next number is tried).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../kernel/home.js';

interface Counter {
  next: number;
}

async function readCounter(file: string): Promise<number> {
  try {
    const c = JSON.parse(await fs.readFile(file, 'utf8')) as Counter;
    return Number.isInteger(c.next) && c.next > 0 ? c.next : 1;
  } catch {
    return 1;
  }
}

/**
 * Allocates the next key and creates its file with `text(key)`. Must run under the board's lock
 * (BoardStore.locked): the lock orders creates within the engine, `wx` guards against anyone else.
 */
export async function allocateKey(boardDir: string, prefix: string, highestKnown: number, text: (key: string) => string): Promise<string> {
  const counterFile = path.join(boardDir, 'counter.json');
  const itemsDir = path.join(boardDir, 'items');
  await fs.mkdir(itemsDir, { recursive: true });
  let n = Math.max(await readCounter(counterFile), highestKnown + 1);
  for (;;) {
    const key = `${prefix}-${n}`;
    // The counter moves first: a crash between the two writes skips a number, never reuses one.
    await writeFileAtomic(counterFile, JSON.stringify({ next: n + 1 }) + '\n');
    // Written whole to a temp file, then hard-linked into place: link() refuses an existing name,
    // so the item appears complete or not at all and never replaces another.
    const tmp = path.join(itemsDir, `.${key}.${process.pid}.${Date.now()}.tmp`);
    await writeFileAtomic(tmp, text(key));
    try {
      await fs.link(tmp, path.join(itemsDir, `${key}.md`));
      return key;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      n += 1;
    } finally {
      await fs.rm(tmp, { force: true });
    }
  }
}
