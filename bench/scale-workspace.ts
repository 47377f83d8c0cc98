/**
 * Shared by the scale benches: a generated workspace of n small source files (folders of 100,
 * every 100th file holding "needle_token"), with what real workspaces carry and the engine must
 * ignore: a `node_modules` of n/10 files (matching too, behind a .gitignore) and a `.git` of n/20.
 * Written synchronously in one loop (a promise per file is slower). Only the matching files have
 * content: this disk is mounted with `discard`, where removing a file that holds a block costs a
 * discard each (a 1M-file tree of one-line files took over 15 minutes to delete); empty files cost
 * an inode only, and every search still opens every file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const NEEDLE_EVERY = 100;

/** The path of source file `i` (the layout below: folders of 100, 100 folders to a package). */
export const sourceFile = (root: string, i: number) => path.join(root, 'src', `p${Math.floor(i / 10_000)}`, `m${Math.floor(i / 100) % 100}`, `f${i % 100}.ts`);

/** `extras: false` leaves out node_modules and .git (for a real repository made over it). */
export function makeWorkspace(root: string, n: number, extras = true): void {
  const tree = (base: string, count: number, name: (i: number) => string, body: (i: number) => string) => {
    for (let d = 0; d * 100 < count; d++) {
      const dir = path.join(base, `p${Math.floor(d / 100)}`, `m${d % 100}`);
      mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 100 && d * 100 + f < count; f++) writeFileSync(path.join(dir, name(f)), body(d * 100 + f));
    }
  };
  const needle = (i: number) => (i % NEEDLE_EVERY === 0 ? `// needle_token ${i}\n` : '');
  tree(path.join(root, 'src'), n, (f) => `f${f}.ts`, needle);
  if (!extras) return;
  tree(path.join(root, 'node_modules', 'dep'), Math.ceil(n / 10), (f) => `i${f}.js`, needle);
  tree(path.join(root, '.git', 'objects'), Math.ceil(n / 20), (f) => `o${f}`, needle);
  writeFileSync(path.join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(path.join(root, '.gitignore'), 'node_modules/\n');
}

/** Seconds since `t0` (performance.now()), for the fixture lines. */
export const since = (t0: number) => ((performance.now() - t0) / 1000).toFixed(1);
