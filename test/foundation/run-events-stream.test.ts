/**
 * GET /api/runs/<id>/events streams the run's log (issue 34): a long log arrives in chunks as it is
 * read, holds every event in order (a torn line skipped), passes the secret mask line by line (the
 * response hook masks whole bodies only), and an unknown run is still a 404 sentence.
 */
import assert from 'node:assert/strict';
import { appendFile } from 'node:fs/promises';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
});
after(() => t.close());

/** The raw answer: status, headers and how many chunks the body came in. */
function raw(route: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; chunks: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(t.url + route, (res) => {
        let body = '';
        let chunks = 0;
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
          chunks++;
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, chunks }));
      })
      .on('error', reject);
  });
}

test('a long run log streams in chunks, every event in order, a torn line skipped', async () => {
  const run = t.engine.runs.start({ source: 'test' });
  const N = 3000;
  for (let i = 0; i < N; i++) run.emit('state.updated', { key: 'progress', value: { step: i, note: 'x'.repeat(100) } });
  await run.finish('completed');
  // A kill mid-write leaves a torn line; a reader skips it.
  await appendFile(t.engine.runs.logFile(run.id), '{"kind":"torn", "ts": 1, "se');

  const answer = await raw(`/api/runs/${run.id}/events`);
  assert.equal(answer.status, 200);
  assert.match(String(answer.headers['content-type']), /application\/json/);
  assert.equal(answer.headers['content-length'], undefined, 'no length known up front: the body is streamed');
  assert.ok(answer.chunks > 1, `a ${answer.body.length}-byte log arrives in more than one chunk`);
  const { events } = JSON.parse(answer.body) as { events: Array<{ kind: string; seq: number; step?: number; value?: { step: number } }> };
  assert.equal(events.length, N + 2, 'run.started, every update, run.completed');
  assert.equal(events[0].kind, 'run.started');
  assert.equal(events.at(-1)!.kind, 'run.completed');
  assert.deepEqual(events.slice(1, -1).map((e) => e.value!.step), Array.from({ length: N }, (_, i) => i));
  for (let i = 1; i < events.length; i++) assert.ok(events[i].seq > events[i - 1].seq, 'log order');
  // Other readers of the log see the same events.
  assert.deepEqual((await t.engine.runs.events(run.id)).map((e) => e.seq), events.map((e) => e.seq));
});

test('a secret stored after the run wrote it is masked in the streamed log', async () => {
  const SECRET = 'sk-stream-9f8e7d6c5b4a39281706';
  const run = t.engine.runs.start({ source: 'test' });
  run.emit('state.updated', { key: 'note', value: `token is ${SECRET}` });
  await run.finish('completed');
  assert.equal((await t.api('POST', '/api/secrets', { name: 'stream-test', value: SECRET })).status, 200);
  const answer = await raw(`/api/runs/${run.id}/events`);
  assert.equal(answer.status, 200);
  assert.ok(!answer.body.includes(SECRET), 'the stored value never leaves');
  assert.ok(answer.body.includes('token is ***'), answer.body);
});

test('an empty log is an empty list; an unknown run is a 404 sentence', async () => {
  const run = t.engine.runs.start({ source: 'test' });
  await run.finish('completed');
  const { body } = await raw(`/api/runs/${run.id}/events`);
  assert.deepEqual(JSON.parse(body).events.map((e: { kind: string }) => e.kind), ['run.started', 'run.completed']);
  const missing = await t.api('GET', '/api/runs/run-1-999999/events');
  assert.equal(missing.status, 404);
  assert.match(missing.body.error, /no run run-1-999999; GET \/api\/runs lists/);
});
