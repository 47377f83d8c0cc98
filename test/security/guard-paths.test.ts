/**
 * Issue 9 §4, the guard: the path is made canonical once before both the guard and the router, so
 * the mobile token never opens /term (or the relay) through a spelling the guard did not recognise;
 * duplicate Host, Origin with user info, cross-site requests without Origin are refused; every
 * error, Fastify's own included, is `{error: sentence}`. Raw sockets: nothing normalises on the way.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { rawExchange, rawGet, rawUpgradeLines } from './raw-socket.js';

let t: TestEngine;
let port: number;
before(async () => {
  t = await startTestEngine();
  port = t.engine.port;
});
after(() => t.close());

function assertOnlyError(r: { status: number; body: string; head: string }, label: string): string {
  let body: unknown;
  try {
    body = JSON.parse(r.body);
  } catch {
    assert.fail(`${label}: answered ${r.status} with a non-JSON body ${JSON.stringify(r.body.slice(0, 200))}`);
  }
  assert.deepEqual(Object.keys(body as object), ['error'], `${label}: ${r.body}`);
  const sentence = (body as { error: string }).error;
  assert.ok(sentence.length > 10, label);
  assert.doesNotMatch(sentence, /FST_ERR|statusCode|Client Error/, label);
  return sentence;
}

const TERM_SPELLINGS = [
  '/./term',
  '/x/../term',
  '/%2e/term',
  '/%2E/term',
  '/%2e%2e/term',
  '/x/%2e%2e/term',
  '/x/.%2e/term',
  '//term',
  '///term',
  '/term/',
  '/%74erm',
  '/.//term',
  '/term/.',
  '/term?x=/../',
  'http://evil.example/term',
  'http://localhost/term',
  'HTTP://127.0.0.1/term',
  '*',
];

test('the mobile token never opens /term from a foreign Host, whatever the spelling (upgrade)', async () => {
  const token = t.engine.mobileToken;
  for (const target of TERM_SPELLINGS) {
    for (const via of ['header', 'query'] as const) {
      const withToken = via === 'query' ? `${target}${target.includes('?') ? '&' : '?'}id=t1&token=${encodeURIComponent(token)}` : target;
      const lines = ['Host: evil.example'];
      if (via === 'header') lines.push(`X-Engine-Mobile-Token: ${token}`);
      const r = await rawUpgradeLines(port, withToken, lines);
      const label = `upgrade ${withToken} via ${via}`;
      assert.notEqual(r.status, 101, `${label} opened a terminal`);
      assert.ok(r.status === 400 || r.status === 403 || r.status === 404, `${label}: ${r.status}`);
      assertOnlyError(r, label);
    }
  }
});

test('the same spellings over HTTP never reach a route past the guard', async () => {
  const token = t.engine.mobileToken;
  for (const target of ['/api/./relay/enable', '/api/x/../relay/enable', '/api/%2e/relay', '/api//relay', '/api/%72elay/enable', 'http://localhost/api/relay/enable']) {
    const r = await rawGet(port, target, ['Host: evil.example', `X-Engine-Mobile-Token: ${token}`]);
    assert.ok(r.status === 400 || r.status === 403, `${target}: ${r.status}`);
    assertOnlyError(r, target);
  }
});

test('an absolute-form target is refused even where a foreign Host would be replaced by a local authority', async () => {
  for (const target of [`http://127.0.0.1:${port}/api/status`, `http://evil.example/api/status`]) {
    for (const host of ['evil.example', `127.0.0.1:${port}`]) {
      const r = await rawGet(port, target, [`Host: ${host}`]);
      assert.equal(r.status, 400, `${target} host ${host}`);
      assert.match(assertOnlyError(r, target), /path starting with \//);
    }
  }
});

test('dot segments are refused; collapsed slashes and encoded unreserved characters route where the guard judged', async () => {
  const host = `Host: 127.0.0.1:${port}`;
  for (const target of ['/api/./status', '/api/x/../status', '/api/%2e%2e/api/status', '/api/status/..']) {
    const r = await rawGet(port, target, [host]);
    assert.equal(r.status, 400, target);
    assert.match(assertOnlyError(r, target), /"\." or "\.\." segment/);
  }
  for (const target of ['/api//status', '//api/status', '/api/%73tatus', '/%61pi/status']) {
    const r = await rawGet(port, target, [host]);
    assert.equal(r.status, 200, `${target}: ${r.body}`);
    assert.equal(typeof JSON.parse(r.body).engine === 'object' || typeof JSON.parse(r.body) === 'object', true);
  }
  // The events socket under the same canonical form: the guard and the handler lookup agree.
  assert.equal((await rawUpgradeLines(port, '/%65vents', [host])).status, 101);
  assert.equal((await rawUpgradeLines(port, '//events', [host])).status, 101);
});

test('a duplicate Host header is refused, whichever comes first', async () => {
  for (const pair of [[`localhost:${port}`, 'evil.example'], ['evil.example', `localhost:${port}`], [`localhost:${port}`, `localhost:${port}`]]) {
    const r = await rawGet(port, '/api/status', pair.map((h) => `Host: ${h}`));
    assert.equal(r.status, 400, pair.join(' + '));
    assert.match(assertOnlyError(r, pair.join(' + ')), /more than one Host/);
    const u = await rawUpgradeLines(port, '/events', pair.map((h) => `Host: ${h}`));
    assert.equal(u.status, 400, `upgrade ${pair.join(' + ')}`);
  }
});

test('an Origin with user info, a path or a duplicate is refused', async () => {
  const host = `Host: 127.0.0.1:${port}`;
  const bad = [
    `http://evil@localhost:${port}`,
    `http://user:pass@127.0.0.1:${port}`,
    `http://localhost:${port}@evil.example`,
    `http://localhost:${port}/path`,
    `http://localhost:${port}?q=1`,
  ];
  for (const origin of bad) {
    const r = await rawGet(port, '/api/status', [host, `Origin: ${origin}`]);
    assert.equal(r.status, 403, origin);
    assertOnlyError(r, origin);
    assert.equal((await rawUpgradeLines(port, '/events', [host, `Origin: ${origin}`])).status, 403, `upgrade ${origin}`);
  }
  const twice = await rawGet(port, '/api/status', [host, `Origin: http://localhost:${port}`, 'Origin: http://evil.example']);
  assert.equal(twice.status, 403);
  assert.equal((await rawGet(port, '/api/status', [host, `Origin: http://localhost:${port}`])).status, 200);
});

test('Sec-Fetch-Site: cross-site without an Origin is refused; same-origin and none pass', async () => {
  const host = `Host: 127.0.0.1:${port}`;
  for (const value of ['cross-site', 'Cross-Site']) {
    const r = await rawGet(port, '/api/status', [host, `Sec-Fetch-Site: ${value}`]);
    assert.equal(r.status, 403, value);
    assertOnlyError(r, value);
    assert.equal((await rawUpgradeLines(port, '/events', [host, `Sec-Fetch-Site: ${value}`])).status, 403);
    // The token does not make a cross-site page a phone.
    assert.equal((await rawGet(port, '/api/status', [host, `Sec-Fetch-Site: ${value}`, `X-Engine-Mobile-Token: ${t.engine.mobileToken}`])).status, 403);
  }
  for (const value of ['same-origin', 'none', 'same-site']) {
    assert.equal((await rawGet(port, '/api/status', [host, `Sec-Fetch-Site: ${value}`])).status, 200, value);
  }
});

test("Fastify's own error bodies never reach a client", async () => {
  const host = `Host: 127.0.0.1:${port}`;
  // Malformed percent-escapes, non-UTF-8 escapes, NUL, backslash: refused by the edge with a sentence.
  for (const target of ['/api/files/%E0%A4%A', '/api/files/%zz', '/api/files/%', '/api/files/%C0%AF', '/api/files/a%00b', '/api/files/a\\b', '/api/%ff']) {
    const r = await rawGet(port, target, [host]);
    assert.equal(r.status, 400, `${target}: ${r.body}`);
    assertOnlyError(r, target);
  }
  // A request line or header Node's parser rejects: Fastify's client-error answer is replaced.
  for (const text of ['GET /a b c HTTP/1.1\r\nHost: x\r\n\r\n', 'NOPE\r\n\r\n', `GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x\r\n\r\n`]) {
    const r = await rawExchange(port, text);
    assert.equal(r.status, 400, JSON.stringify(text));
    assertOnlyError(r, JSON.stringify(text));
  }
  const expect = await rawExchange(port, `GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: something-else\r\n\r\n`);
  assert.equal(expect.status, 417);
  assertOnlyError(expect, 'Expect');
  const huge = await rawExchange(port, `GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`);
  assert.equal(huge.status, 431);
  assertOnlyError(huge, 'header overflow');
  // A path parameter past the router's bound.
  const long = await rawGet(port, `/api/agents/${'a'.repeat(5000)}`, [host]);
  assert.ok(long.status >= 400 && long.status < 500, String(long.status));
  assertOnlyError(long, 'long param');
});
