/**
 * Issue 9 §4: stored secret values never leave the engine in plain text, whatever channel they come
 * back through: a provider that echoes the key (test-provider and a chat turn), tool output that
 * prints a secret (read_file, run_shell) and the model request that carries it back, the model's
 * own reply, a user message, a config typo (request body and hand-edited file), events, run logs,
 * the run index, chat transcripts, HTTP responses and error sentences, and log lines.
 */
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startChat, type ChatHarness } from '../chat/harness.js';

const SECRET = 'S3cr3t-stored-value-91b7c2d4';
const KEY = 'sk-test-key-123'; // the harness stores this as the provider's key

let h: ChatHarness;
const answers: string[] = [];

async function call(method: string, route: string, body?: unknown | string) {
  const res = await fetch(h.t.url + route, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  answers.push(`${method} ${route.includes(SECRET) ? '(route naming the secret)' : route} -> ${res.status} ${text}`);
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // raw answers stay text
  }
  return { status: res.status, body: parsed, text };
}

async function filesUnder(dir: string, skip: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (skip.includes(p)) continue;
    if (entry.isDirectory()) out.push(...(await filesUnder(p, skip)));
    else out.push(p);
  }
  return out;
}

const leaks = (text: string) => [SECRET, KEY].filter((v) => text.includes(v));

before(async () => {
  h = await startChat('openai-compatible');
  assert.equal((await call('POST', '/api/secrets', { name: 'deploy.token', value: SECRET })).status, 200);
  await writeFile(path.join(h.t.home, 'workspace', 'notes.txt'), `the deploy token is ${SECRET}\n`);
});
after(() => h.close());

test('a provider error that echoes the key is masked in test-provider answers', async () => {
  h.model.script({ error: 401, body: { error: { message: `Incorrect API key provided: ${KEY}. Also ${SECRET}.` } } });
  const r = await call('POST', '/api/test-provider', { type: 'openai-compatible', name: 'scripted', baseUrl: h.model.baseUrl, model: 'm' });
  assert.equal(r.body.ok, false);
  assert.match(r.body.error, /Incorrect API key provided: \*\*\*/);
  assert.deepEqual(leaks(r.text), []);
});

test('a chat turn: echoed key, tool output, model reply and user message are masked in events, transcript, runs and the next model request', async () => {
  h.model.script(
    { toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }, { name: 'run_shell', args: { command: 'cat notes.txt; echo "$HOME" >/dev/null' } }] },
    { text: `I found ${SECRET} in the notes.`, chunkChars: 1000 },
  );
  const seq = h.lastSeq();
  const sent = await call('POST', '/api/chat', { sessionId: 'leak', message: `please keep ${SECRET} safe`, permissionMode: 'allow' });
  assert.equal(sent.status, 202, sent.text);
  const end = await h.turnEnd('leak', seq);
  assert.equal(end.kind, 'run.completed', String(end.error));
  // The tool really printed it (masked on its way out), and the model's next request got the masked text.
  const results = h.events.events.filter((e) => e.kind === 'tool.result' && e.runId === end.runId);
  assert.equal(results.length, 2);
  for (const r of results) assert.match(String(r.result), /deploy token is \*\*\*/);
  const second = JSON.stringify(h.model.requests.at(-1)!.body);
  assert.match(second, /deploy token is \*\*\*/);
  assert.deepEqual(leaks(second), []);

  // A failing turn whose provider error echoes the key.
  h.model.script({ error: 400, body: { error: { message: `bad request for key ${KEY} and ${SECRET}` } } });
  const seq2 = h.lastSeq();
  await call('POST', '/api/chat', { sessionId: 'leak', message: 'again' });
  const end2 = await h.turnEnd('leak', seq2);
  assert.equal(end2.kind, 'run.failed');
  assert.match(String(end2.error), /\*\*\*/);

  for (const route of ['/api/chat/leak', '/api/chat/leak?view=full', '/api/chat', `/api/runs/${end.runId}/events`, `/api/runs/${end2.runId}/events`, '/api/runs', '/api/notifications']) {
    const r = await call('GET', route);
    assert.equal(r.status, 200, route);
    assert.deepEqual(leaks(r.text), [], route);
  }
  const transcript = await call('GET', '/api/chat/leak?view=full');
  assert.match(transcript.text, /please keep \*\*\* safe/);
});

test('a reply streamed in small chunks never carries the value in pieces: deltas, partial records, transcript', async () => {
  for (const chunkChars of [1, 3, 7]) {
    h.model.script({ text: `first ${SECRET} then ${SECRET.slice(0, 9)} and ${KEY} end`, chunkChars, delayMs: 2 });
    const seq = h.lastSeq();
    await call('POST', '/api/chat', { sessionId: `split-${chunkChars}`, message: 'say it' });
    const end = await h.turnEnd(`split-${chunkChars}`, seq);
    assert.equal(end.kind, 'run.completed', String(end.error));
    const deltas = h.events.events.filter((e) => e.kind === 'chat.delta' && e.runId === end.runId).map((e) => String(e.text));
    assert.ok(deltas.length > 3, `streamed in ${deltas.length} deltas`);
    // Whole, the stream reads as the masked reply: nothing lost, nothing held back, nothing leaked.
    assert.equal(deltas.join(''), `first *** then ${SECRET.slice(0, 9)} and *** end`);
    // Not even across neighbouring deltas.
    for (let i = 0; i + 1 < deltas.length; i++) assert.deepEqual(leaks(deltas.slice(Math.max(0, i - 40), i + 2).join('')), []);
  }
});

test('a config typo never echoes the value: a request body and a hand-edited file', async () => {
  const bad = await call('PUT', '/api/config', `{"providers": [{"type": "openai", "model": "m", "name": "x", "newKey": ${SECRET}}]}`);
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /malformed JSON/);
  assert.deepEqual(leaks(bad.text), []);
  // Not even the first characters V8 quotes around a syntax error.
  assert.ok(!bad.text.includes(SECRET.slice(0, 6)), bad.text);
  const bad2 = await call('PUT', '/api/config', `{"providers": [{"type": "openai", "model": "m", "name": "x", "newKey": "${SECRET}" oops}]}`);
  assert.equal(bad2.status, 400);
  assert.deepEqual(leaks(bad2.text), []);

  const file = path.join(h.t.home, 'engine.config.json');
  const good = await readFile(file, 'utf8');
  const seq = h.lastSeq();
  await writeFile(file, `{"providers": [{"type": "openai", "model": "m", "apiKey": ${SECRET} }]}`);
  await h.t.engine.config.reload();
  const reloaded = await h.events.waitFor((e) => e.kind === 'config.reloaded' && e.seq > seq);
  assert.equal(reloaded.ok, false);
  assert.deepEqual(leaks(JSON.stringify(reloaded)), []);
  assert.ok(!JSON.stringify(reloaded).includes(SECRET.slice(0, 6)), String(reloaded.error));
  assert.ok(!h.t.logs.join('\n').includes(SECRET.slice(0, 6)));
  await writeFile(file, good);
  await h.t.engine.config.reload();
});

test('error sentences of routes are masked (a secret name echoed in a 404)', async () => {
  const r = await call('DELETE', `/api/secrets/${encodeURIComponent(SECRET)}`);
  assert.ok(r.status >= 400);
  assert.deepEqual(leaks(r.text), []);
  const r2 = await call('GET', `/api/runs/${SECRET}/events`);
  assert.ok(r2.status >= 400);
  assert.deepEqual(leaks(r2.text), []);
});

test("the editor's file read is exempt: the person's file comes back byte for byte", async () => {
  const r = await call('GET', '/api/files/notes.txt');
  assert.equal(r.status, 200);
  assert.equal(r.body.content, `the deploy token is ${SECRET}\n`);
});

test('a secret stored a moment ago is masked in the very next answer', async () => {
  const fresh = 'fresh-secret-value-5e6f7a8b';
  await call('POST', '/api/secrets', { name: 'fresh', value: fresh });
  const r = await call('GET', `/api/runs/${fresh}/events`);
  assert.ok(!r.text.includes(fresh));
});

test('nothing left the engine in plain text: every event, every answer, every log line, every file of the home', async () => {
  const events = JSON.stringify(h.events.events);
  assert.ok(h.events.events.length > 20);
  assert.deepEqual(leaks(events), [], 'events');
  for (const a of answers.filter((x) => !x.startsWith('GET /api/files/notes.txt'))) assert.deepEqual(leaks(a), [], a.slice(0, 120));
  assert.deepEqual(leaks(h.t.logs.join('\n')), [], 'log lines');
  const files = await filesUnder(h.t.home, [path.join(h.t.home, 'workspace')]);
  assert.ok(files.some((f) => f.includes(`${path.sep}runs${path.sep}`)) && files.some((f) => f.includes(`${path.sep}chat${path.sep}`)));
  for (const f of files) assert.deepEqual(leaks(await readFile(f, 'latin1')), [], f);
});

test('encoded copies of a stored secret are masked too: base64, hex, URL-encoded, reversed (issue 22 §4)', async () => {
  const notes = `the deploy token is ${SECRET}\n`;
  const command = [
    'base64 -w0 notes.txt; echo',
    "printf %s 'xy' | cat - notes.txt | base64 -w0; echo",
    "od -An -tx1 notes.txt | tr -d ' \\n'; echo",
    "od -An -tx1 notes.txt | tr -d ' \\n' | tr a-f A-F; echo",
    'rev notes.txt',
    "python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(open(\"notes.txt\").read()))'",
  ].join('; ');
  h.model.script({ toolCalls: [{ name: 'run_shell', args: { command } }] }, { text: 'done' });
  const seq = h.lastSeq();
  assert.equal((await call('POST', '/api/chat', { sessionId: 'encoded', message: 'encode it', permissionMode: 'allow' })).status, 202);
  const end = await h.turnEnd('encoded', seq);
  assert.equal(end.kind, 'run.completed', String(end.error));
  const bytes = Buffer.from(SECRET);
  const spellings = {
    base64: bytes.toString('base64').slice(0, 24),
    base64Shifted: Buffer.from(`xy${notes}`).toString('base64').slice(40, 60),
    hex: bytes.toString('hex'),
    HEX: bytes.toString('hex').toUpperCase(),
    reversed: [...SECRET].reverse().join(''),
    url: encodeURIComponent(`is ${SECRET}`),
  };
  const result = String(h.events.events.find((e) => e.kind === 'tool.result' && e.runId === end.runId)?.result);
  assert.match(result, /\*\*\*/);
  const texts = { event: result, request: JSON.stringify(h.model.requests.at(-1)!.body), transcript: (await call('GET', '/api/chat/encoded?view=full')).text };
  for (const [where, text] of Object.entries(texts)) {
    for (const [name, spelled] of Object.entries(spellings)) assert.ok(!text.includes(spelled), `${name} copy in ${where}: ${text.slice(0, 600)}`);
  }
});
