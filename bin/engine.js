#!/usr/bin/env node
// The `engine` command: runs the compiled CLI. `npm run build` produces dist/ and, when esbuild is
// available, dist/bundle/ (same code in a few files: a faster start).
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/bundle/main.js', import.meta.url);
await import(existsSync(bundle) ? bundle.href : new URL('../dist/main.js', import.meta.url).href);
