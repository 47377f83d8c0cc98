/** Seed 000 §7: every error is JSON {"error": sentence}; 404, 405, 400, 413; never HTML or a stack. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { rawRequest, rawUpgrade } from '../support/raw-http.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
});
after(() => t.close());

function assertJsonError(r: { status: number; body: string }, status: number) {
  assert.equal(r.status, status, r.body.slice(0, 200));
  const body = JSON.parse(r.body);
  assert.deepEqual(Object.keys(body), ['error']);
  assert.equal(typeof body.error, 'string');
  assert.ok(body.error.length > 5);
  assert.doesNotMatch(r.body, /<html|at [\w.]+ \(|node_modules|\.ts:\d+/i);
  return body.error as string;
}

test('unknown path is 404 JSON', async () => {
  assertJsonError(await rawRequest(t.engine.port, { path: '/api/no-such-thing' }), 404);
  assertJsonError(await rawRequest(t.engine.port, { path: '/nothing-here' }), 404);
});

test('a path that exists for another verb is 405 {"error": "method not allowed"}', async () => {
  for (const [method, path] of [['DELETE', '/api/status'], ['POST', '/api/settings'], ['PUT', '/api/secrets'], ['GET', '/api/notifications/read']]) {
    const r = await rawRequest(t.engine.port, { method, path });
    assert.equal(r.status, 405, `${method} ${path}`);
    assert.deepEqual(JSON.parse(r.body), { error: 'method not allowed' });
  }
});

test('malformed JSON is 400 with a sentence', async () => {
  const msg = assertJsonError(await rawRequest(t.engine.port, { method: 'PUT', path: '/api/settings', headers: { 'content-type': 'application/json' }, body: '{"chatMaxTurns": ' }), 400);
  assert.match(msg, /malformed JSON/);
});

test('a body over 32 MB is 413', async () => {
  const big = '"' + 'x'.repeat(32 * 1024 * 1024 + 10) + '"';
  const r = await rawRequest(t.engine.port, { method: 'PUT', path: '/api/settings', headers: { 'content-type': 'application/json' }, body: big }).catch((err) => {
    // The server may close the socket after answering; that still must not be a success.
    throw err;
  });
  const msg = assertJsonError(r, 413);
  assert.match(msg, /32 MB/);
});

test('an unknown WebSocket path is a JSON 404', async () => {
  const r = await rawUpgrade(t.engine.port, '/nope');
  assertJsonError(r, 404);
});
