/** The guard of seed 000 §5 over real HTTP and real WebSocket upgrades: hosts x origins x mobile token. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { rawRequest, rawUpgrade } from '../support/raw-http.js';

let t: TestEngine;
let port: number;
before(async () => {
  t = await startTestEngine();
  port = t.engine.port;
});
after(() => t.close());

const FORBIDDEN = { error: 'forbidden: non-local host or origin' };
const WRONG = { error: "forbidden: the mobile token is not this engine's; open the pairing address the engine printed at start again" };

function hosts(p: number): Array<[string, boolean]> {
  return [
    [`127.0.0.1:${p}`, true],
    [`localhost:${p}`, true],
    [`[::1]:${p}`, true],
    ['localhost', true],
    ['127.0.0.1', true],
    ['LOCALHOST:' + p, true],
    ['evil.example', false],
    [`evil.example:${p}`, false],
    [`127.0.0.1.evil.example:${p}`, false],
    [`localhost.evil.example`, false],
    ['192.168.1.20:' + p, false],
  ];
}

function origins(p: number): Array<[string | undefined, boolean]> {
  return [
    [undefined, true],
    [`http://127.0.0.1:${p}`, true],
    [`http://localhost:${p}`, true],
    [`http://[::1]:${p}`, true],
    ['http://localhost:5173', true],
    ['http://127.0.0.1:5173', true],
    ['http://evil.example', false],
    ['http://evil.example:5173', false],
    [`http://evil.example:${p}`, false],
    ['http://localhost:9999', false],
    ['null', false],
  ];
}

type Token = 'none' | 'valid' | 'wrong';
const TOKENS: Token[] = ['none', 'valid', 'wrong'];

test('HTTP: host x origin x token header', async () => {
  let cases = 0;
  for (const [host, hostOk] of hosts(port)) {
    for (const [origin, originOk] of origins(port)) {
      for (const token of TOKENS) {
        const headers: Record<string, string> = { host };
        if (origin !== undefined) headers.origin = origin;
        if (token !== 'none') headers['x-engine-mobile-token'] = token === 'valid' ? t.engine.mobileToken : 'not-the-token';
        // A wrong token is refused even from a local caller: never judged as if none were sent (issue 39 §3).
        const expectOk = token === 'valid' || (token === 'none' && hostOk && originOk);
        const r = await rawRequest(port, { path: '/api/status', headers });
        const label = `host=${host} origin=${origin} token=${token}`;
        if (expectOk) assert.equal(r.status, 200, label);
        else {
          assert.equal(r.status, 403, label);
          assert.deepEqual(JSON.parse(r.body), token === 'wrong' ? WRONG : FORBIDDEN, label);
        }
        cases++;
      }
    }
  }
  assert.equal(cases, hosts(port).length * origins(port).length * TOKENS.length);
});

test('WebSocket upgrade: host x origin x token as header and as ?token=', async () => {
  for (const [host, hostOk] of hosts(port)) {
    for (const [origin, originOk] of origins(port)) {
      for (const token of TOKENS) {
        for (const via of ['header', 'query'] as const) {
          if (token === 'none' && via === 'query') continue;
          const headers: Record<string, string> = { host };
          if (origin !== undefined) headers.origin = origin;
          const value = token === 'valid' ? t.engine.mobileToken : 'not-the-token';
          let path = '/events';
          if (token !== 'none' && via === 'header') headers['x-engine-mobile-token'] = value;
          if (token !== 'none' && via === 'query') path += `?token=${encodeURIComponent(value)}`;
          const expectOk = token === 'valid' || (token === 'none' && hostOk && originOk);
          const r = await rawUpgrade(port, path, headers);
          const label = `ws host=${host} origin=${origin} token=${token} via ${via}`;
          if (expectOk) assert.equal(r.status, 101, label);
          else {
            assert.equal(r.status, 403, label);
            assert.deepEqual(JSON.parse(r.body), token === 'wrong' ? WRONG : FORBIDDEN, label);
          }
        }
      }
    }
  }
});

test('?token= opens only WebSockets, never a plain HTTP request', async () => {
  const r = await rawRequest(port, { path: `/api/status?token=${encodeURIComponent(t.engine.mobileToken)}`, headers: { host: 'evil.example' } });
  assert.equal(r.status, 403);
});

test('the mobile token never opens /api/relay/* or /term', async () => {
  const token = t.engine.mobileToken;
  for (const host of ['evil.example', `127.0.0.1:${port}`]) {
    for (const path of ['/api/relay', '/api/relay/enable', '/api//relay/enable', '/api/%72elay/enable']) {
      const r = await rawRequest(port, { method: 'POST', path, headers: { host, 'x-engine-mobile-token': token } });
      assert.equal(r.status, 403, `${host} ${path}`);
      assert.deepEqual(JSON.parse(r.body), FORBIDDEN);
    }
    for (const via of ['header', 'query'] as const) {
      const headers: Record<string, string> = { host };
      if (via === 'header') headers['x-engine-mobile-token'] = token;
      const r = await rawUpgrade(port, via === 'query' ? `/term?id=1&token=${encodeURIComponent(token)}` : '/term?id=1', headers);
      if (host === 'evil.example') assert.equal(r.status, 403, `/term ${host} via ${via}`);
    }
  }
  // A local caller without the token passes the guard on both (and meets the router: no such route yet).
  const local = await rawRequest(port, { method: 'POST', path: '/api/relay/enable', headers: { host: `127.0.0.1:${port}` } });
  assert.notEqual(local.status, 403);
  const term = await rawUpgrade(port, '/term?id=1', { host: `127.0.0.1:${port}` });
  assert.notEqual(term.status, 403);
});

test('the mobile token header with a valid token reaches the whole API from a foreign host', async () => {
  const r = await rawRequest(port, { path: '/api/settings', headers: { host: 'phone.lan:7777', origin: 'http://phone.lan', 'x-engine-mobile-token': t.engine.mobileToken } });
  assert.equal(r.status, 200);
});
