#!/usr/bin/env node
// Bundles the CLI into dist/bundle/ because start-up time is measured (bench/startup):
//   main.js     the supervisor and CLI (ESM, small: it never loads the engine's modules)
//   engine.cjs  the engine and every dependency in one CommonJS file, loaded by main.js through
//               node:vm with a V8 code cache (written after the first start into the engine's cache
//               folder, ENGINE_CACHE_DIR or ~/.cache/workbench-engine/code/), so later starts skip
//               parsing and compiling ~2 MB of JavaScript.
// bin/engine.js uses the bundle when it exists and dist/main.js otherwise, so a missing esbuild (a
// dependency of tsx) only costs start-up time, never correctness.
import { rmSync } from 'node:fs';

let esbuild;
try {
    esbuild = await import('esbuild');
  } catch {
    process.stderr.write('bundle: esbuild is not installed; the engine runs from dist/main.js (slower start)\n');
    process.exit(0);
  }

  // Native addons, wasm loaders and packages that locate files next to themselves stay external.
  const external = ['@napi-rs/keyring', 'node-pty', 'web-tree-sitter', 'tree-sitter-bash', 'onnxruntime-node', '@huggingface/transformers', 'fsevents',
    // Fastify's own schema compilers (Ajv, ajv-formats, fast-json-stringify): the engine gives Fastify
    // its compilers (src/http/validation.ts), so these are never loaded; ~450 kB of source V8 would hold.
    '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler'];
  const outdir = process.argv[2] ?? 'dist/bundle';
  rmSync(outdir, { recursive: true, force: true });

try {
  await esbuild.build({
    entryPoints: ['src/engine.ts'],
    outfile: `${outdir}/engine.cjs`,
    bundle: true,
    // Whitespace and syntax only, names kept (stack traces still name their functions): the bundle
    // goes from 2.9 to 1.9 MB, and V8 holds its whole source for the life of the process, so the
    // idle engine is ~1 MB smaller (bench/memory) and a start without a code cache parses less.
    minifyWhitespace: true,
    minifySyntax: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external,
    sourcemap: 'linked',
    logLevel: 'warning',
    // Sources written as ESM read import.meta.url (createRequire, file lookups); give CommonJS one.
    define: { 'import.meta.url': '__engineImportMetaUrl' },
    banner: { js: "const __engineImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  });

  /** main.ts imports ./engine.js lazily; in the bundle that import loads engine.cjs with the code cache. */
  const engineLoader = {
    name: 'engine-loader',
    setup(build) {
      build.onResolve({ filter: /^\.\/engine\.js$/ }, (args) => (args.importer.endsWith('main.ts') ? { path: 'engine', namespace: 'engine-loader' } : undefined));
      build.onLoad({ filter: /.*/, namespace: 'engine-loader' }, () => ({
        loader: 'js',
        contents: `
  import { createRequire } from 'node:module';
  import { createHash } from 'node:crypto';
  import fs from 'node:fs';
  import os from 'node:os';
  import path from 'node:path';
  import vm from 'node:vm';
  import { fileURLToPath } from 'node:url';
  const file = fileURLToPath(new URL('./engine.cjs', import.meta.url));
  // In a function so the source string and the cache buffer are garbage once compiled (the Script
  // keeps its own copy of the source for lazy compilation): ~3 MB less idle memory (bench/memory).
  function load() {
    const source = fs.readFileSync(file, 'utf8');
    // The cache lives in a cache folder the engine owns (an install folder may be read-only), keyed by
    // this install's bundle and the Node version so two installs or an upgrade never share one.
    const cacheDir = process.env.ENGINE_CACHE_DIR
      || (process.platform === 'darwin' ? path.join(os.homedir(), 'Library', 'Caches', 'workbench-engine')
        : process.platform === 'win32' ? path.join(process.env.LOCALAPPDATA || path.join(os.homedir(), 'AppData', 'Local'), 'workbench-engine', 'Cache')
        : path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'workbench-engine'));
    const st = fs.statSync(file);
    const key = createHash('sha256').update([file, st.size, st.mtimeMs, process.version, process.arch].join('\\0')).digest('hex').slice(0, 16);
    const cacheFile = path.join(cacheDir, 'code', 'engine-' + key + '.cache');
    let cachedData;
    try { cachedData = fs.readFileSync(cacheFile); } catch {}
    const script = new vm.Script('(function (exports, require, module, __filename, __dirname) {' + source + '\\n})', { filename: file, cachedData });
    const mod = { exports: {} };
    script.runInThisContext()(mod.exports, createRequire(file), mod, file, path.dirname(file));
    if (!cachedData || script.cachedDataRejected) {
      // Written once start-up code has run, so the cache holds the functions a start compiles too.
      setTimeout(() => {
        const tmp = cacheFile + '.' + process.pid + '.tmp';
        try {
          fs.mkdirSync(path.dirname(cacheFile), { recursive: true, mode: 0o700 });
          fs.writeFileSync(tmp, script.createCachedData());
          fs.renameSync(tmp, cacheFile);
        } catch (err) {
          try { fs.rmSync(tmp, { force: true }); } catch {}
          // Said once (this runs once per process): starts still work, they compile from source.
          process.stderr.write('engine: could not write the code cache ' + cacheFile + ' (' + (err && err.code || err) + '); starts compile the engine from source. Set ENGINE_CACHE_DIR to a writable folder.\\n');
        }
      }, 2000).unref();
    }
    return mod.exports;
  }
  const engine = load();
  export const startEngine = engine.startEngine;
  export const defaultHome = engine.defaultHome;
  `,
      }));
    },
  };

  await esbuild.build({
    entryPoints: ['src/main.ts'],
    outfile: `${outdir}/main.js`,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: [...external, './engine.cjs'],
    plugins: [engineLoader],
    sourcemap: 'linked',
    logLevel: 'warning',
    banner: { js: "import { createRequire as __engineCreateRequire } from 'node:module'; const require = __engineCreateRequire(import.meta.url);" },
  });
} catch (err) {
  // A bundle that cannot be built must not fail the install: bin/engine.js falls back to dist/main.js.
  rmSync(outdir, { recursive: true, force: true });
  process.stderr.write(`bundle: skipped (${err?.message ?? err}); the engine runs from dist/main.js (slower start)\n`);
}
