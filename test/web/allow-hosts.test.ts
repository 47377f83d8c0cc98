/**
 * Issue 44 §4: private hosts a person names (ENGINE_ALLOW_HOSTS, --allow-hosts). The list's syntax
 * and its refusals; the floor letting exactly the listed hosts through (a name, an address literal,
 * an address an unlisted name resolves to, each on its port), judged again by the address dialled
 * (DNS rebinding), and never the engine's own ports; real loopback servers, one named and one not.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { formatAllowHosts, parseAllowHosts } from '../../src/capabilities/web/allow-hosts.js';
import { createUrlFloor, type ResolveAll, type UrlFloor } from '../../src/capabilities/web/floor.js';
import { floorGet } from '../../src/capabilities/web/http-get.js';
import { ConfigError, resolveSettings } from '../../src/cli/settings.js';

test('the list: names, IPv4 and IPv6 literals, each with or without a port', () => {
  assert.deepEqual(parseAllowHosts(' Wiki.Corp.Example , 10.0.0.5:8080,[fd00::7]:443, fd00::8 ,build_01.corp.example., localhost:11434,'), [
    { host: 'wiki.corp.example' },
    { host: '10.0.0.5', port: 8080 },
    { host: 'fd00::7', port: 443 },
    { host: 'fd00::8' },
    { host: 'build_01.corp.example' },
    { host: 'localhost', port: 11434 },
  ]);
  assert.deepEqual(parseAllowHosts(''), []);
  assert.equal(formatAllowHosts(parseAllowHosts('wiki,10.0.0.5:8080,[fd00::7]:443,fd00::8')), 'wiki,10.0.0.5:8080,[fd00::7]:443,fd00::8');
});

test('a bad entry is refused with a sentence naming it and how to write one', () => {
  const cases: Array<[string, RegExp]> = [
    ['http://wiki.corp', /"http:\/\/wiki\.corp" is a URL, not a host/],
    ['10.0.0.0/8', /"10\.0\.0\.0\/8" is a range or a path; name each host/],
    ['*.corp.example', /holds a wildcard/],
    ['wiki:0', /has "0" where a port \(1-65535\) belongs/],
    ['wiki:99999', /has "99999" where a port/],
    ['wiki:http', /has "http" where a port/],
    ['fd00::7:443:x', /"fd00::7:443:x" is an IPv6 address with a port; write it as \[address\]:port/],
    ['[wiki]:80', /is not an IPv6 address in brackets/],
    ['0.0.0.0', /the unspecified address/],
    ['[::]:80', /the unspecified address/],
    ['10.0.0.256', /is not a valid IPv4 address/],
    ['bad host', /is not a valid host name/],
    ['-x.corp', /is not a valid host name/],
  ];
  for (const [text, why] of cases) {
    assert.throws(() => parseAllowHosts(`ok.example,${text}`), (e: Error) => {
      assert.match(e.message, why, text);
      assert.match(e.message, /give host or host:port entries separated by commas \(e\.g\./, text);
      return true;
    });
  }
});

test('only the environment or the flag of whoever starts the engine sets it, the flag first; a bad value names its source', () => {
  assert.deepEqual(resolveSettings({}, { ENGINE_ALLOW_HOSTS: 'wiki.corp.example' }).allowHosts, [{ host: 'wiki.corp.example' }]);
  assert.deepEqual(resolveSettings({ allowHosts: '10.0.0.5:80' }, { ENGINE_ALLOW_HOSTS: 'wiki.corp.example' }).allowHosts, [{ host: '10.0.0.5', port: 80 }]);
  assert.deepEqual(resolveSettings({}, {}).allowHosts, []);
  assert.throws(() => resolveSettings({}, { ENGINE_ALLOW_HOSTS: 'wiki,http://x' }), (e: Error) => e instanceof ConfigError && /^ENGINE_ALLOW_HOSTS: "http:\/\/x" is a URL/.test(e.message));
  assert.throws(() => resolveSettings({ allowHosts: 'a:b' }, {}), (e: Error) => e instanceof ConfigError && /^--allow-hosts: "a:b" has "b" where a port/.test(e.message));
});

// A fake DNS: no network. `rebind.example` answers public for the check and private for the connection.
let rebindCalls = 0;
const zone: Record<string, string[]> = {
  'wiki.corp.example': ['10.1.2.3'],
  'other.corp.example': ['10.1.2.4'],
  'alias.corp.example': ['10.0.0.5'],
  'public.example': ['93.184.215.14'],
  'home.example': ['127.0.0.1'],
};
const resolve: ResolveAll = async (host) => {
  if (host === 'rebind.example') return [{ address: rebindCalls++ === 0 ? '93.184.215.14' : '10.0.0.5', family: 4 }];
  const found = zone[host];
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const OWN = 7777;
const floor = createUrlFloor({ resolve, allow: parseAllowHosts('wiki.corp.example,10.0.0.5:8080,[fd00::7]:443,127.0.0.1,localhost:11434'), ownPorts: () => [OWN, null] });

const passes = async (url: string) => assert.equal((await floor.check(url)).href, new URL(url).href, url);
const refused = async (url: string, why: RegExp) =>
  assert.rejects(floor.check(url), (e: any) => {
    assert.equal(e.status, 403, url);
    assert.match(e.message, why, url);
    return true;
  });
const dial = (f: UrlFloor, host: string, port: number) =>
  new Promise<{ err: Error | null; address?: string }>((done) => f.lookupFor!(port)(host, {}, (err, address) => done({ err, address: address as string })));

test('the check: exactly the listed hosts on their ports pass; every other private address is refused', async () => {
  await passes('http://wiki.corp.example/page'); // a listed name, any port
  await passes('https://wiki.corp.example:8443/');
  await passes('http://10.0.0.5:8080/x'); // a listed address on its port
  await passes('https://[fd00::7]/'); // 443 is https's own port
  await passes('https://[fd00:0:0::7]:443/'); // the same address written otherwise
  await passes('http://localhost:11434/api/tags');
  await passes('http://alias.corp.example:8080/'); // an unlisted name resolving to a listed address:port
  await passes('http://127.0.0.1:3000/'); // 127.0.0.1 listed without a port
  await refused('http://10.0.0.5/x', /a private address/); // port 80 is not listed
  await refused('http://10.0.0.5:8081/', /a private address/);
  await refused('http://alias.corp.example/', /alias\.corp\.example resolves to 10\.0\.0\.5, a private address/);
  await refused('http://other.corp.example/', /resolves to 10\.1\.2\.4, a private address/);
  await refused('http://10.1.2.3/', /a private address/); // wiki's address, but only the name is listed
  await refused('http://[fd00::8]:443/', /unique-local/);
  await refused('http://localhost:3000/', /localhost is the engine's own machine/);
  await refused('http://127.0.0.2:3000/', /a loopback address/);
  await refused('http://192.168.1.1/', /a private address/);
  await passes('https://public.example/'); // the public web as before
});

test("the engine's own ports stay refused on this machine, whatever is listed", async () => {
  await refused(`http://127.0.0.1:${OWN}/api/secrets`, /where the engine itself listens on port 7777, which no allowed host opens/);
  await refused(`http://[::ffff:127.0.0.1]:${OWN}/`, /loopback/);
  const homeName = await dial(createUrlFloor({ resolve, allow: parseAllowHosts('home.example'), ownPorts: () => [OWN] }), 'home.example', OWN);
  assert.match(String(homeName.err?.message), /where the engine itself listens on port 7777/);
});

test('at connect time the address dialled is judged with its port (DNS rebinding)', async () => {
  rebindCalls = 0;
  await passes('http://rebind.example:8081/'); // public at the check
  const rebound = await dial(floor, 'rebind.example', 8081); // 10.0.0.5, listed only for 8080
  assert.match(String(rebound.err?.message), /the engine does not connect to rebind\.example: it resolves to 10\.0\.0\.5, a private address/);
  const listedPort = await dial(floor, 'rebind.example', 8080);
  assert.equal(listedPort.err, null);
  assert.equal(listedPort.address, '10.0.0.5');
  const named = await dial(floor, 'wiki.corp.example', 22);
  assert.equal(named.address, '10.1.2.3', 'a listed name reaches whatever it resolves to');
  // The lookup without a port (port unknown) lets through only hosts listed without one.
  const portless = await new Promise<Error | null>((done) => floor.lookup('alias.corp.example', {}, (err) => done(err)));
  assert.match(String(portless?.message), /10\.0\.0\.5, a private address/);
});

// Two real loopback services: one named in the list, one not.
let named: http.Server;
let unnamed: http.Server;
const portOf = (s: http.Server) => (s.address() as AddressInfo).port;
before(async () => {
  named = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('named service'));
  unnamed = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('unnamed service'));
  await Promise.all([named, unnamed].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
});
after(() => Promise.all([named, unnamed].map((s) => new Promise<void>((r) => s.close(() => r())))));

test('a loopback service named in the list is fetched; one not named is refused', async () => {
  const real = createUrlFloor({ allow: [{ host: '127.0.0.1', port: portOf(named) }] });
  const got = await floorGet(`http://127.0.0.1:${portOf(named)}/`, { floor: real });
  assert.equal(got.body.toString(), 'named service');
  await assert.rejects(floorGet(`http://127.0.0.1:${portOf(unnamed)}/`, { floor: real }), (e: any) => e.status === 403 && /a loopback address/.test(e.message));
  // By name: `localhost` listed with the port reaches it; the same port by address literal is not listed.
  const byName = createUrlFloor({ allow: [{ host: 'localhost', port: portOf(named) }] });
  assert.equal((await floorGet(`http://localhost:${portOf(named)}/`, { floor: byName })).body.toString(), 'named service');
  await assert.rejects(floorGet(`http://localhost:${portOf(unnamed)}/`, { floor: byName }), /localhost is the engine's own machine/);
});
