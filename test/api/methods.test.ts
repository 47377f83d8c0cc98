/** Issue 10 items 1 and 2: 405 with Allow for every path of another verb; 415 for a JSON route sent something else. */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { METHOD_NOT_ALLOWED } from '../../src/http/methods.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { rawRequest } from '../support/raw-http.js';
import { registeredRoutes } from './routes-table.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine({ files: { watch: false } });
});
after(() => t.close());

const allowOf = (h: string | null) => (h ?? '').split(',').map((s) => s.trim()).filter(Boolean).sort();

test('the paths a parametrised route used to swallow answer 405 with Allow', async () => {
  const cases: Array<[string, string, string[]]> = [
    ['GET', '/api/chat/stop', ['POST']],
    ['GET', '/api/chat/mode', ['PUT']],
    ['GET', '/api/chat/queue', ['DELETE', 'PUT']],
    ['PUT', '/api/chat/stop', ['POST']],
    ['DELETE', '/api/agents/order', ['GET', 'HEAD', 'PUT']],
    ['GET', '/api/memory/consolidate', ['POST']],
  ];
  for (const [method, path, allow] of cases) {
    const r = await fetch(t.url + path, { method });
    assert.equal(r.status, 405, `${method} ${path}`);
    assert.deepEqual(await r.json(), { error: METHOD_NOT_ALLOWED });
    assert.deepEqual(allowOf(r.headers.get('allow')), allow, `${method} ${path}`);
  }
});

test('every literal path of the route table answers 405 with a true Allow under every verb it lacks', async () => {
  const routes = registeredRoutes(t.engine.app).filter((r) => r.url !== '*' && !r.url.includes(':'));
  const byPath = new Map<string, Set<string>>();
  for (const r of routes) byPath.set(r.url, (byPath.get(r.url) ?? new Set()).add(r.method));
  let checked = 0;
  for (const [path, verbs] of byPath) {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH']) {
      if (verbs.has(method)) continue;
      const r = await rawRequest(t.engine.port, { method, path });
      assert.equal(r.status, 405, `${method} ${path}: ${r.body}`);
      checked++;
    }
    const one = await fetch(t.url + path, { method: 'PATCH' });
    const expected = [...verbs, ...(verbs.has('GET') ? ['HEAD'] : [])].sort();
    assert.deepEqual(allowOf(one.headers.get('allow')), expected, path);
  }
  assert.ok(checked > 100, `only ${checked} cases`);
});

test('a session, agent or file named like a literal still works under its own verb', async () => {
  assert.equal((await t.api('GET', '/api/chat/not-a-session')).status, 404);
  assert.equal((await t.api('GET', '/api/agents/order')).status, 200);
});

test('HEAD answers as its GET would, headers and all, without a body', async () => {
  const get = await rawRequest(t.engine.port, { path: '/api/settings' });
  const head = await headOf('/api/settings');
  assert.equal(head.status, 200);
  assert.equal(head.body, '', 'no body');
  assert.equal(head.headers['content-length'], String(Buffer.byteLength(get.body)), 'the length of the GET body');
  assert.match(String(head.headers['content-type']), /^application\/json/);
  // The early lane's route, a parametrised route, a literal path of another verb.
  assert.equal((await headOf('/api/status')).status, 200);
  assert.equal((await headOf('/api/status')).body, '');
  assert.equal((await headOf('/api/chat/not-a-session')).status, 404);
  const stop = await headOf('/api/chat/stop');
  assert.equal(stop.status, 405);
  assert.equal(stop.headers.allow, 'POST');
  assert.equal(stop.body, '');
});

/** A HEAD request over a bare socket, reading every byte until the engine closes it (a body would show). */
function headOf(path: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(t.engine.port, '127.0.0.1', () => socket.write(`HEAD ${path} HTTP/1.1\r\nHost: 127.0.0.1:${t.engine.port}\r\nConnection: close\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: text.slice(split + 4) });
    });
  });
}

test('a JSON route sent a form body (curl -d) answers 415 with a sentence, and nothing changes', async () => {
  await t.engine.notifications.notify({ title: 'one' });
  await t.engine.notifications.notify({ title: 'two' });
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const cases: Array<[string, string, string]> = [
    ['POST', '/api/notifications/read', '{"id":"x"}'],
    ['PUT', '/api/settings', '{"chatMaxTurns":5}'],
    ['POST', '/api/chat', '{"sessionId":"s","message":"hi"}'],
    ['POST', '/api/diagnostics', '{"root":"elsewhere"}'],
    ['PUT', '/api/config', '{"providers":[]}'],
  ];
  for (const [method, path, body] of cases) {
    const r = await rawRequest(t.engine.port, { method, path, headers: form, body });
    assert.equal(r.status, 415, `${method} ${path}`);
    assert.match(JSON.parse(r.body).error, /send it with the header content-type: application\/json/);
  }
  const none = await rawRequest(t.engine.port, { method: 'PUT', path: '/api/settings', body: '{"chatMaxTurns":5}' });
  assert.equal(none.status, 415, 'a body without any content type');
  assert.equal((await t.api('GET', '/api/notifications')).body.unreadCount, 2, 'nothing was marked read');
  assert.equal((await t.api('GET', '/api/settings')).body.chatMaxTurns, 50);
});

test('JSON with a charset passes, an empty body is no body, and raw uploads keep their content types', async () => {
  const r = await rawRequest(t.engine.port, { method: 'PUT', path: '/api/settings', headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"chatMaxTurns":7}' });
  assert.equal(r.status, 200, r.body);
  const all = await rawRequest(t.engine.port, { method: 'POST', path: '/api/notifications/read' });
  assert.equal(all.status, 200, all.body);
  const bin = await rawRequest(t.engine.port, { method: 'PUT', path: '/api/files-bin/raw.bin', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1&b=2' });
  assert.equal(bin.status, 200, bin.body);
  assert.equal((await t.api('GET', '/api/files/raw.bin')).body.content, 'a=1&b=2');
});
