/** The relay's sealed frames and pairing keys, and the relay policy, on their own (no broker). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { relayRefusal } from '../../src/capabilities/relay/policy.js';
import { Counter, deviceKeys, encodeBlob, decodeBlob, exportPublic, generateKeyPair, importAes, open, pairingKeys, RefusedFrame, seal, toB64u } from '../../src/capabilities/relay/protocol.js';

const refusedAs = (reason: string) => (err: unknown) => err instanceof RefusedFrame && err.reason === reason;

test('both sides derive the same device keys from ECDH and the pairing secret; another secret gives others', async () => {
  const engine = await generateKeyPair();
  const phone = await generateKeyPair();
  const blob = { engine: 'e1', pair: 'p1', secret: toB64u(crypto.getRandomValues(new Uint8Array(32))) };
  const a = await deviceKeys(engine.privateKey, await exportPublic(phone.publicKey), blob);
  const b = await deviceKeys(phone.privateKey, await exportPublic(engine.publicKey), blob);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a.up, a.down, 'one key per direction');
  const c = await deviceKeys(phone.privateKey, await exportPublic(engine.publicKey), { ...blob, secret: toB64u(crypto.getRandomValues(new Uint8Array(32))) });
  assert.notDeepEqual(a.up, c.up);
});

test('a frame opens once, under its key and topic; altered, moved, replayed or under another key it is refused', async () => {
  const key = await importAes(crypto.getRandomValues(new Uint8Array(32)));
  const other = await importAes(crypto.getRandomValues(new Uint8Array(32)));
  const counter = new Counter();
  const n = counter.next();
  const frame = await seal(key, 'wb/e/d/x/u', n, { t: 'watch' });
  assert.deepEqual(await open(key, 'wb/e/d/x/u', frame, 0), { message: { t: 'watch' }, counter: n });
  await assert.rejects(open(key, 'wb/e/d/x/u', frame, n), refusedAs('replayed'));
  await assert.rejects(open(key, 'wb/e/d/y/u', frame, 0), refusedAs('tampered'), 'the topic is authenticated');
  await assert.rejects(open(other, 'wb/e/d/x/u', frame, 0), refusedAs('tampered'));
  for (const at of [3, 12, frame.length - 1]) {
    const bent = frame.slice();
    bent[at] ^= 0x40;
    await assert.rejects(open(key, 'wb/e/d/x/u', bent, 0), refusedAs('tampered'), `byte ${at} is covered (header, IV, tag)`);
  }
  await assert.rejects(open(key, 'wb/e/d/x/u', frame.subarray(0, 20), 0), refusedAs('malformed'));
  assert.ok(counter.next() > n, 'counters climb');
});

test('the pairing code round-trips; a damaged one is a sentence', async () => {
  const secret = () => toB64u(crypto.getRandomValues(new Uint8Array(32)));
  const blob = { v: 1, url: 'wss://user:pw@b.example:8883/mqtt?x=1', engine: 'e', pair: 'p', secret: secret(), pub: 'k' };
  assert.deepEqual(decodeBlob(encodeBlob(blob)), blob);
  assert.throws(() => decodeBlob('not a code'), /scan the QR code/);
  assert.throws(() => decodeBlob(encodeBlob({ ...blob, v: 9 })), /another version/);
  assert.throws(() => decodeBlob(encodeBlob(blob).split('.').slice(0, 4).join('.')), /not readable/);
  const keys = await pairingKeys(blob);
  const frame = await seal(keys.up, 't', 1, { t: 'pair' });
  await assert.rejects(open((await pairingKeys({ ...blob, secret: secret() })).up, 't', frame, 0), refusedAs('tampered'), 'without the secret the pairing does not open');
});

test('the policy judges the path as the guard does, and remote start opens only work, never the refusals', () => {
  for (const path of ['/api/relay', '/api/relay/', '/api%2Frelay', '//api/relay/enable', '/api/relay?x=1', '/term', '/api/secrets/x', '/api/settings', '/api/permissions', '/api/permissions/rule', '/api/mounts', '/api/home', '/api/browser/token/rotate']) {
    for (const remoteStart of [false, true]) assert.equal(relayRefusal('GET', path, undefined, remoteStart)?.status, 403, `${path} (remote start ${remoteStart})`);
  }
  assert.equal(relayRefusal('GET', '/api/permissions/pending', undefined, false), undefined);
  assert.equal(relayRefusal('POST', '/api/permissions/resolve', { callId: 'c', decision: 'allow' }, false), undefined);
  assert.match(relayRefusal('POST', '/api/permissions/resolve', { callId: 'c', decision: 'allow', scope: 'always' }, true)!.message, /once/);
  assert.equal(relayRefusal('POST', '/api/gates/resolve', {}, false), undefined);
  assert.equal(relayRefusal('POST', '/api/runs/run-1/stop', undefined, false), undefined);
  assert.match(relayRefusal('POST', '/api/runs/deploy', {}, false)!.message, /remote start is off/);
  assert.match(relayRefusal('PUT', '/api/files/a.txt', {}, false)!.message, /remote start is off/);
  assert.equal(relayRefusal('POST', '/api/runs/deploy', {}, true), undefined);
  assert.equal(relayRefusal('TRACE', '/api/status', undefined, true)?.status, 400);
  assert.equal(relayRefusal('GET', 'api/status', undefined, true)?.status, 400);
});

