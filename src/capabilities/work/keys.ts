/**
 * Keys `<PREFIX>-<n>` from a counter that never hands out a number twice. The counter
 * (`counter.json`) is advanced before the item file exists, under the board's lock; the next number
 * is also never below the highest key on disk, so a counter lost or rolled back by git still cannot
 * reuse a key; and the item file is linked into place exclusively, so even another process writing the
 * same folder cannot overwrite an item.
 */
import { promises as fs, readdirSync } from 'node:fs';
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

function highestOnDisk(itemsDir: string, prefix: string): number {
  const re = new RegExp(`^${prefix}-([1-9][0-9]*)\\.md$`);
  let high = 0;
  let names: string[] = [];
  try {
    names = readdirSync(itemsDir);
  } catch {
    /* none yet */
  }
  for (const n of names) {
    const m = re.exec(n);
    if (m) high = Math.max(high, Number(m[1]));
  }
  return high;
}

/**
 * Allocates the next key and creates its file with `text(key)`. Must run under the board's lock
 * (BoardStore.locked): the lock orders creates within the engine, `wx` guards against anyone else.
 */
export async function allocateKey(boardDir: string, prefix: string, text: (key: string) => string): Promise<string> {
  const counterFile = path.join(boardDir, 'counter.json');
  const itemsDir = path.join(boardDir, 'items');
  await fs.mkdir(itemsDir, { recursive: true });
  let n = Math.max(await readCounter(counterFile), highestOnDisk(itemsDir, prefix) + 1);
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
