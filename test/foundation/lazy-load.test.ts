/**
 * Start-up loads only what a first request needs (docs/performance.md, issue 11): the model SDKs,
 * the MCP SDK (and its zod), pg, mysql2, libpg-query, html-to-text and js-tiktoken's ranks stay out of the bundle and out of a
 * started engine until first used, as do node-pty (the first terminal), web-tree-sitter (the first
 * grammar: a shell command checked, a file indexed) and Ajv (the first tool call or workflow checked: route
 * bodies are checked by the route validator, and Fastify's own compilers, which would load Ajv at start,
 * never load) (issue 42); the model SDK is warmed once a client opens its chats with a
 * provider configured (idle memory, issue 34).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../support/engine.js';
import { buildBundle, bundleDir, NO_ESBUILD } from '../support/bundle.js';

const LAZY = /node_modules\/(ai|@ai-sdk\/[^/]+|@modelcontextprotocol\/sdk|zod|pg|pg-boss|mysql2|html-to-text|js-tiktoken|libpg-query|vega-lite|vega|node-pty|web-tree-sitter|ajv)\//;

/** Runs in a plain node process: starts the bundled engine, reports which lazy packages are loaded when. */
const probe = `
const engine = require(process.argv[2]);
const lazy = new RegExp(process.argv[4]);
const loaded = () => [...new Set(Object.keys(require.cache).filter((f) => lazy.test(f)).map((f) => f.match(lazy)[1]))].sort();
const wait = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
  const e = await engine.startEngine({ home: process.argv[3], port: 0, gatewayPort: 0, secretsBackend: 'file', log: () => {}, files: { watch: false } });
  const atStart = loaded();
  await (await fetch(e.url + '/api/status')).text();
  await wait(2500);
  const afterWarmUps = loaded();
  const put = await fetch(e.url + '/api/config', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ providers: [{ type: 'openai-compatible', name: 'p', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }], defaultProvider: 'p' }) });
  await wait(1500);
  const withProvider = loaded();
  const list = await fetch(e.url + '/api/chat');
  await list.text();
  for (let i = 0; i < 100 && !loaded().includes('ai'); i++) await wait(100);
  process.stdout.write(JSON.stringify({ atStart, afterWarmUps, put: put.status, withProvider, list: list.status, chatOpened: loaded() }));
  await e.close();
  process.exit(0);
})();
`;

test('a start loads none of the heavy lazy packages; the model SDK loads once chat is opened with a provider configured', { skip: NO_ESBUILD }, async () => {
  const out = bundleDir('lazy');
  const home = await tempDir();
  try {
    buildBundle(out);
    // The bundle is minified (no per-module path comments): its source map lists every file in it.
    const { sources } = JSON.parse(await readFile(path.join(out, 'engine.cjs.map'), 'utf8')) as { sources: string[] };
    assert.ok(sources.some((s) => /node_modules\/fastify\//.test(s)), 'the source map lists the bundled packages');
    assert.deepEqual(sources.filter((s) => LAZY.test(s)), [], 'no lazy package is bundled into engine.cjs');
    await writeFile(path.join(out, 'probe.cjs'), probe);
    const run = spawnSync(process.execPath, [path.join(out, 'probe.cjs'), path.join(out, 'engine.cjs'), home, LAZY.source], { cwd: out, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    const seen = JSON.parse(run.stdout) as { atStart: string[]; afterWarmUps: string[]; put: number; withProvider: string[]; list: number; chatOpened: string[] };
    assert.deepEqual(seen.atStart, []);
    assert.deepEqual(seen.afterWarmUps, [], 'the warm-ups leave the model SDK unloaded');
    assert.equal(seen.put, 200);
    // A request with a body is checked by the route validator, not Ajv (issue 42); Fastify's own compilers never load.
    assert.deepEqual(seen.withProvider, [], 'a provider configured, nobody chatting: the model SDK and Ajv stay unloaded');
    assert.equal(seen.list, 200);
    const now = seen.chatOpened;
    assert.ok(now.includes('ai') && now.includes('@ai-sdk/openai-compatible'), `loaded once chat is opened: ${now.join(', ')}`);
    assert.ok(!now.includes('mysql2') && !now.includes('pg') && !now.includes('libpg-query') && !now.includes('@modelcontextprotocol/sdk'));
    assert.ok(!now.includes('js-tiktoken'), 'the BPE ranks load on the first tool count, not before');
  } finally {
    await rm(out, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
});
