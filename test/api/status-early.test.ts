/**
 * GET /api/status is answered before Fastify's lifecycle when the request is plain (src/http/server.ts,
 * answerEarly; bench/status-throughput). That lane must answer exactly as the Fastify route does:
 * the same headers and body, the guard's refusals in the same words, stored secrets masked.
 * `?` sends the same request down the Fastify route (a query never takes the early lane).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
});
after(async () => {
  await t.close();
});

/** A raw GET (fetch would set its own Host and Origin rules aside). */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const { port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      })
      .on('error', reject);
  });
}

const same = async (headers: Record<string, string> = {}) => {
  const early = await get('/api/status', headers);
  const routed = await get('/api/status?', headers);
  assert.equal(early.status, routed.status);
  assert.equal(early.body, routed.body);
  for (const h of ['content-type', 'content-length', 'connection', 'keep-alive']) assert.equal(early.headers[h], routed.headers[h], h);
  return early;
};

test('the early answer is the Fastify route’s answer: headers, body, guard refusals', async () => {
  const ok = await same();
  assert.equal(ok.status, 200);
  assert.equal(JSON.parse(ok.body).ok, true);
  const foreignHost = await same({ host: 'evil.example' });
  assert.equal(foreignHost.status, 403);
  const foreignOrigin = await same({ origin: 'https://evil.example' });
  assert.equal(foreignOrigin.status, 403);
});

test('a stored secret in the status body is masked on the early lane too', async () => {
  const secret = 'PLANTEDstatus7f3a9c41';
  assert.equal((await t.api('POST', '/api/secrets', { name: 'planted', value: secret })).status, 200);
  const put = await t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: secret, baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }], defaultProvider: secret });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const res = await same();
  assert.ok(!res.body.includes(secret), res.body);
  assert.ok(res.body.includes('***'), res.body);
});
