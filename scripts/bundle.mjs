#!/usr/bin/env node
// Bundles the compiled CLI into dist/bundle/ (main + a lazily loaded engine chunk), because loading
// one file instead of a few hundred modules takes more than 100 ms off every engine start
// (bench/startup). bin/engine.js uses the bundle when it exists and dist/main.js otherwise, so a
// missing esbuild (a dependency of tsx) only costs start-up time, never correctness.
import { rmSync } from 'node:fs';

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  process.stderr.write('bundle: esbuild is not installed; the engine runs from dist/main.js (slower start)\n');
  process.exit(0);
}

// Native addons, wasm loaders and packages that locate files next to themselves stay external.
const external = ['@napi-rs/keyring', 'node-pty', 'web-tree-sitter', 'tree-sitter-bash', '@parcel/watcher', 'onnxruntime-node', '@huggingface/transformers', 'fsevents'];

const outdir = process.argv[2] ?? 'dist/bundle';
rmSync(outdir, { recursive: true, force: true });
await esbuild.build({
  entryPoints: { main: 'src/main.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  sourcemap: 'linked',
  logLevel: 'warning',
  // CommonJS dependencies call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __engineCreateRequire } from 'node:module'; const require = __engineCreateRequire(import.meta.url);" },
});
