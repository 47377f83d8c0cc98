/**
 * Issue 9 §4, the URL floor: this machine's own interface addresses (whatever range they are in,
 * read at check time) and the unspecified addresses in every spelling are refused, as literals, as
 * what a name resolves to, and at connect time. A real server on 0.0.0.0 proves nothing reached it.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { after, before, test } from 'node:test';
import { addressRefusal, createUrlFloor, hostRefusal, urlFloor } from '../../src/capabilities/web/floor.js';
import { floorGet } from '../../src/capabilities/web/http-get.js';

const own = Object.values(os.networkInterfaces())
  .flat()
  .filter((a): a is os.NetworkInterfaceInfo => !!a && !a.internal);
const ownV4 = own.filter((a) => a.family === 'IPv4').map((a) => a.address);
const ownV6 = own.filter((a) => a.family === 'IPv6').map((a) => a.address.split('%')[0]);

const octets = (a: string) => a.split('.').map(Number);
const asInt = (a: string) => octets(a).reduce((n, o) => n * 256 + o, 0);

/** Every spelling of an IPv4 address a URL parser or a resolver accepts. */
function v4Spellings(a: string): string[] {
  const o = octets(a);
  const n = asInt(a);
  const hex2 = (x: number) => x.toString(16).padStart(2, '0');
  return [
    a,
    String(n),
    '0x' + n.toString(16),
    '0' + n.toString(8),
    o.map((x) => '0x' + x.toString(16)).join('.'),
    o.map((x) => '0' + x.toString(8)).join('.'),
    `${o[0]}.${(o[1] << 16) | (o[2] << 8) | o[3]}`,
    `${o[0]}.${o[1]}.${(o[2] << 8) | o[3]}`,
    `[::ffff:${a}]`,
    `[::ffff:${hex2(o[0])}${hex2(o[1])}:${hex2(o[2])}${hex2(o[3])}]`,
    `[0:0:0:0:0:ffff:${a}]`,
    `[::${a}]`,
    `[64:ff9b::${a}]`,
    `[2002:${hex2(o[0])}${hex2(o[1])}:${hex2(o[2])}${hex2(o[3])}::1]`,
  ];
}

test("every spelling of this machine's own IPv4 interface addresses is refused", { skip: ownV4.length ? false : 'no non-loopback IPv4 interface on this machine' }, async () => {
  for (const a of ownV4) {
    for (const host of v4Spellings(a)) {
      await assert.rejects(urlFloor.check(`http://${host}:8080/x`), (e: any) => e.status === 403, `http://${host}:8080/x`);
    }
    assert.ok(addressRefusal(a), a);
    assert.ok(addressRefusal(`::ffff:${a}`), a);
  }
});

test("this machine's own IPv6 interface addresses are refused", { skip: ownV6.length ? false : 'no non-loopback IPv6 interface' }, async () => {
  for (const a of ownV6) {
    await assert.rejects(urlFloor.check(`http://[${a}]/`), (e: any) => e.status === 403, a);
    assert.ok(addressRefusal(a), a);
    // The fully written form of the same address.
    const full = new URL(`http://[${a}]/`).hostname;
    assert.ok(addressRefusal(full), full);
  }
});

test('a name that resolves to an own address is refused at check time and at connect time', { skip: ownV4.length ? false : 'no non-loopback IPv4 interface' }, async () => {
  const floor = createUrlFloor({ resolve: async () => [{ address: ownV4[0], family: 4 }] });
  await assert.rejects(floor.check('http://innocent.example/'), (e: any) => e.status === 403 && /own network interfaces/.test(e.message));
  const err = await new Promise<Error | null>((resolve) => floor.lookup('innocent.example', {}, (e) => resolve(e)));
  assert.match(String(err?.message), /own network interfaces/);
});

let server: http.Server;
let port: number;
let hits = 0;
before(async () => {
  server = http.createServer((_req, res) => {
    hits++;
    res.end('reached');
  });
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', () => r()));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((r) => server.close(() => r())));

test('a real server on 0.0.0.0 is never reached through an own address or an unspecified one', async () => {
  const targets = [...ownV4.flatMap((a) => [a, String(asInt(a)), `[::ffff:${a}]`]), '0.0.0.0', '0', '0x0', '[::]', '[::ffff:0.0.0.0]'];
  for (const host of targets) {
    await assert.rejects(floorGet(`http://${host}:${port}/`, { floor: urlFloor, maxBytes: 1000 }), (e: any) => e.status === 403, host);
  }
  assert.equal(hits, 0);
});

test('the unspecified addresses in all their spellings', async () => {
  const urls = [
    'http://0.0.0.0/',
    'http://0/',
    'http://0x0/',
    'http://0.0/',
    'http://0.0.0/',
    'http://00000000/',
    'http://0x00000000/',
    'http://0.0x0.00.0/',
    'http://[::]/',
    'http://[0:0:0:0:0:0:0:0]/',
    'http://[0000:0000:0000:0000:0000:0000:0000:0000]/',
    'http://[::0]/',
    'http://[::ffff:0.0.0.0]/',
    'http://[::ffff:0:0]/',
    'http://[0:0:0:0:0:ffff:0.0.0.0]/',
    'http://[::0.0.0.0]/',
    'http://[64:ff9b::0.0.0.0]/',
  ];
  for (const url of urls) await assert.rejects(urlFloor.check(url), (e: any) => e.status === 403, url);
  for (const host of ['0', '0x0', '0.0', '0.0.0', '0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0', '::ffff:0.0.0.0', '00', '0x00000000', '0.0x0.0.0']) {
    assert.ok(hostRefusal(host), host);
  }
  for (const address of ['0.0.0.0', '::', '0:0:0:0:0:0:0:0', '::ffff:0.0.0.0', '::ffff:0:0']) assert.ok(addressRefusal(address), address);
  // A resolver answering an unspecified address in any form is refused too.
  for (const address of ['0.0.0.0', '::', '::ffff:0.0.0.0']) {
    const floor = createUrlFloor({ resolve: async () => [{ address, family: address.includes(':') ? 6 : 4 }] });
    await assert.rejects(floor.check('http://zero.example/'), (e: any) => e.status === 403, address);
  }
});

test('public addresses still pass', () => {
  for (const a of ['93.184.215.14', '2606:2800:220:1:248:1893:25c8:1946', '1.1.1.1']) assert.equal(addressRefusal(a), undefined, a);
});
