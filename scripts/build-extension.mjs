#!/usr/bin/env node
// Copies the browser extension's source (extension/browser: plain JavaScript, nothing to compile)
// into dist/extension/browser, the template the engine installs into <home>/browser/extension with
// the home's pinned key and its pairing.json (src/capabilities/browser/pairing.ts).
import { cpSync, rmSync } from 'node:fs';

rmSync('dist/extension/browser', { recursive: true, force: true });
cpSync('extension/browser', 'dist/extension/browser', { recursive: true, filter: (src) => !src.endsWith('pairing.json') });
