/**
 * Issue 9 §4: with a non-loopback bind, a caller whose socket peer is not loopback presents the
 * mobile token on every route and upgrade, whatever Host it sends. Real sockets from this machine's
 * own non-loopback interface address when it has one; the guard decision with a faked peer always.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, test } from 'node:test';
import { Guard } from '../../src/http/guard.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { rawGet, rawUpgradeLines } from './raw-socket.js';

const external = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && !a.internal && a.family === 'IPv4')?.address;

let t: TestEngine;
let port: number;
before(async () => {
  t = await startTestEngine({ bind: '0.0.0.0' });
  port = t.engine.port;
});
after(() => t.close());

const LOCAL_HOSTS = () => ['localhost', `localhost:${port}`, `127.0.0.1:${port}`, '[::1]', `${external}:${port}`];

test('a non-loopback peer without the token is refused on every route and upgrade, whatever Host it sends', { skip: external ? false : 'this machine has no non-loopback IPv4 interface (the faked-peer test below covers the decision)' }, async () => {
  const via = { host: external!, localAddress: external! };
  for (const host of LOCAL_HOSTS()) {
    for (const path of ['/api/status', '/api/secrets', '/api/config', '/api/nope']) {
      const r = await rawGet(port, path, [`Host: ${host}`], via);
      assert.equal(r.status, 403, `${host} ${path}: ${r.body}`);
      assert.deepEqual(JSON.parse(r.body), { error: 'forbidden: non-local host or origin' });
    }
    for (const path of ['/events', '/term?id=n1']) {
      const r = await rawUpgradeLines(port, path, [`Host: ${host}`], via);
      assert.equal(r.status, 403, `upgrade ${host} ${path}`);
    }
    const origin = await rawGet(port, '/api/status', [`Host: ${host}`, `Origin: http://localhost:${port}`], via);
    assert.equal(origin.status, 403);
  }
});

test('the same peer with the token gets the API and /events, never /term or the relay', { skip: external ? false : 'no non-loopback IPv4 interface' }, async () => {
  const via = { host: external!, localAddress: external! };
  const token = `X-Engine-Mobile-Token: ${t.engine.mobileToken}`;
  for (const host of ['evil.example', `localhost:${port}`]) {
    assert.equal((await rawGet(port, '/api/status', [`Host: ${host}`, token], via)).status, 200);
    assert.equal((await rawUpgradeLines(port, '/events', [`Host: ${host}`, token], via)).status, 101);
    assert.equal((await rawUpgradeLines(port, `/events?token=${encodeURIComponent(t.engine.mobileToken)}`, [`Host: ${host}`], via)).status, 101);
    assert.equal((await rawUpgradeLines(port, '/term?id=n2', [`Host: ${host}`, token], via)).status, 403);
    assert.equal((await rawGet(port, '/api/relay/enable', [`Host: ${host}`, token], via)).status, 403);
    assert.equal((await rawGet(port, '/api/relay/enable', [`Host: ${host}`], via)).status, 403);
  }
  // Loopback peers on the same listener keep the local rules.
  assert.equal((await rawGet(port, '/api/status', [`Host: localhost:${port}`])).status, 200);
});

test('the guard decision with a faked remote peer', () => {
  const token = 'a'.repeat(43);
  const guard = new Guard(() => 4317, () => token);
  const check = (remoteAddress: string | undefined, headers: Record<string, string>, url = '/api/status', upgrade = false) =>
    guard.check({ headers, url, remoteAddress, upgrade, rawHeaders: Object.entries(headers).flat() });
  for (const peer of ['192.168.1.7', '10.0.0.2', '::ffff:192.168.1.7', 'fd00::2', '2001:db8::1', '::ffff:7f00:1', '0.0.0.0', undefined]) {
    for (const host of ['localhost', 'localhost:4317', '127.0.0.1', '[::1]:4317']) {
      assert.equal(check(peer, { host }).ok, false, `${peer} ${host}`);
      assert.equal(check(peer, { host, origin: 'http://localhost:4317' }).ok, false);
      assert.equal(check(peer, { host, 'x-engine-mobile-token': token }).ok, true);
      assert.equal(check(peer, { host }, `/events?token=${token}`, true).ok, true);
      assert.equal(check(peer, { host, 'x-engine-mobile-token': token }, '/term?id=1', true).ok, false);
    }
  }
  for (const peer of ['127.0.0.1', '127.3.4.5', '::1', '::ffff:127.0.0.1']) assert.equal(check(peer, { host: 'localhost:4317' }).ok, true, peer);
});
