/**
 * Issue 26: a note edited on disk right after the engine wrote it is re-indexed (the watcher's echo
 * suppression compares what the file looks like, never swallows the next event), and search
 * prefix-matches the last word of the query, as a search box does.
 */
import assert from 'node:assert/strict';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';

let t: TestEngine;
let events: EventCollector;
let root: string;

before(async () => {
  root = path.join(await tempDir('vault-echo-'), 'kb');
  await mkdir(path.join(root, 'notes'), { recursive: true });
  await writeFile(path.join(root, 'notes', 'Kettle.md'), '# Kettle\n\nBoils water for tea.\n');
  await writeFile(path.join(root, 'notes', 'Kettles.md'), '# Kettles\n\nA list of kettles.\n');
  await writeFile(path.join(root, 'notes', 'Diary.md'), '# Diary\n');
  t = await startTestEngine();
  events = await collectEvents(t.url);
  assert.equal((await t.api('POST', '/api/vaults', { name: 'kb', path: root })).status, 201);
});
after(async () => {
  events.close();
  await t.close();
});

async function eventually(check: () => Promise<boolean>, what: string, ms = 8_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a note edited on disk right after the engine wrote it is re-indexed', async () => {
  const put = await t.api('PUT', '/api/vaults/kb/note?path=kb/notes/Diary.md', { content: '# Diary\n\nWrote this through the engine.\n' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  // Another editor appends a word at once, well inside the old 3 s echo window.
  await appendFile(path.join(root, 'notes', 'Diary.md'), '\nplatypus\n');
  const found = async () => ((await t.api('GET', '/api/vaults/kb/search?q=platypus%20')).body.results ?? []).some((r: { path: string }) => r.path === 'kb/notes/Diary.md');
  await eventually(found, 'the appended word is searchable');
});

test('a file written through the files API and edited outside at once is reported as fs.changed', async () => {
  const ws = await t.api('PUT', '/api/files/echo.txt', { content: 'engine\n' });
  assert.equal(ws.status, 200, JSON.stringify(ws.body));
  const seq = events.events.at(-1)?.seq ?? 0;
  await appendFile(path.join(t.engine.fence.roots()[0].path, 'echo.txt'), 'outside\n');
  await events.waitFor((e) => e.kind === 'fs.changed' && e.seq > seq && (e.paths as string[]).includes('echo.txt'), 8_000);
});

test('search prefix-matches the last word of the query; a finished word (trailing space) matches whole', async () => {
  const res = await t.api('GET', '/api/vaults/kb/search?q=kettl');
  assert.deepEqual(res.body.results.map((r: { path: string }) => r.path).sort(), ['kb/notes/Kettle.md', 'kb/notes/Kettles.md']);
  assert.match(res.body.results.find((r: { path: string }) => r.path === 'kb/notes/Kettles.md').snippet, /kettles/);
  const two = await t.api('GET', '/api/vaults/kb/search?q=water%20te');
  assert.deepEqual(two.body.results.map((r: { path: string }) => r.path), ['kb/notes/Kettle.md'], 'earlier words still match whole, the last as a prefix');
  const whole = await t.api('GET', '/api/vaults/kb/search?q=kettl%20');
  assert.deepEqual(whole.body.results, []);
});
