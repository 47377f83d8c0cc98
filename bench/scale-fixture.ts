/**
 * Shared by the scale benches: a generated workspace of n small source files (folders of 100,
 * every 100th file holding "needle_token"), with what real workspaces carry and the engine must
 * ignore: a `node_modules` of n/10 files (matching too, behind a .gitignore) and a `.git` of n/20.
 * Written synchronously in one loop: 1M files in about a minute, where a promise per file is slower.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const NEEDLE_EVERY = 100;

export function makeWorkspace(root: string, n: number): void {
  const tree = (base: string, count: number, name: (i: number) => string, body: (i: number) => string) => {
    for (let d = 0; d * 100 < count; d++) {
      const dir = path.join(base, `p${Math.floor(d / 100)}`, `m${d % 100}`);
      mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 100 && d * 100 + f < count; f++) writeFileSync(path.join(dir, name(f)), body(d * 100 + f));
    }
  };
  tree(path.join(root, 'src'), n, (f) => `f${f}.ts`, (i) => `export const v${i} = ${i};\n${i % NEEDLE_EVERY === 0 ? `// needle_token ${i}\n` : ''}`);
  tree(path.join(root, 'node_modules', 'dep'), Math.ceil(n / 10), (f) => `i${f}.js`, (i) => `module.exports = "needle_token ${i}";\n`);
  tree(path.join(root, '.git', 'objects'), Math.ceil(n / 20), (f) => `o${f}`, (i) => `needle_token ${i}\n`);
  writeFileSync(path.join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(path.join(root, '.gitignore'), 'node_modules/\n');
}

/** Seconds since `t0` (performance.now()), for the fixture lines. */
export const since = (t0: number) => ((performance.now() - t0) / 1000).toFixed(1);
