import assert from 'node:assert/strict';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { addressRefusal, createUrlFloor, hostRefusal, type ResolveAll } from '../../src/capabilities/web/floor.js';
import { floorRequest, schemeOnly } from '../../src/capabilities/web/floor-request.js';
import { floorGet } from '../../src/capabilities/web/http-get.js';

// A fake DNS: public names resolve to a public address, the rest as the test says. No network.
const zone: Record<string, Array<{ address: string; family: number }>> = {
  'public.example': [{ address: '93.184.215.14', family: 4 }],
  'private.example': [{ address: '10.1.2.3', family: 4 }],
  'mixed.example': [
    { address: '93.184.215.14', family: 4 },
    { address: '192.168.1.20', family: 4 },
  ],
  'v6private.example': [{ address: 'fd12:3456::1', family: 6 }],
  'loop.example': [{ address: '127.0.0.1', family: 4 }],
};
const resolve: ResolveAll = async (host) => {
  const found = zone[host];
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found;
};
const floor = createUrlFloor({ resolve });

const refused = async (url: string, why: RegExp) => {
  await assert.rejects(floor.check(url), (e: any) => {
    assert.equal(e.status, 403, url);
    assert.match(e.message, why, url);
    return true;
  });
};

test('schemes other than http(s) are refused', async () => {
  for (const url of ['file:///etc/passwd', 'ftp://public.example/', 'gopher://public.example/', 'data:text/plain,hi', 'javascript:alert(1)']) {
    await refused(url, /only http and https/);
  }
  await refused('not a url', /not a valid URL/);
});

test('every refused IPv4 class, in literal and alternative spellings', async () => {
  const cases: Array<[string, RegExp]> = [
    ['http://127.0.0.1/', /loopback/],
    ['http://127.9.8.7:8080/x', /loopback/],
    ['http://2130706433/', /loopback/], // decimal form of 127.0.0.1
    ['http://0x7f.1/', /loopback/], // hex short form
    ['http://017700000001/', /loopback/], // octal
    ['http://10.0.0.1/', /private/],
    ['http://172.16.0.1/', /private/],
    ['http://172.31.255.255/', /private/],
    ['http://192.168.1.1/', /private/],
    ['http://100.64.0.1/', /carrier-grade NAT/],
    ['http://100.127.255.254/', /carrier-grade NAT/],
    ['http://169.254.169.254/latest/meta-data/', /link-local/],
    ['http://0.0.0.0/', /unspecified/],
    ['http://224.0.0.1/', /multicast/],
    ['http://239.255.255.250/', /multicast/],
    ['http://255.255.255.255/', /reserved or broadcast/],
  ];
  for (const [url, why] of cases) await refused(url, why);
});

test('every refused IPv6 class, including IPv4-mapped forms', async () => {
  const cases: Array<[string, RegExp]> = [
    ['http://[::1]/', /loopback/],
    ['http://[::]/', /unspecified/],
    ['http://[fc00::1]/', /unique-local/],
    ['http://[fd12:3456::1]/', /unique-local/],
    ['http://[fe80::1]/', /link-local/],
    ['http://[febf::1]/', /link-local/],
    ['http://[ff02::1]/', /multicast/],
    ['http://[::ffff:127.0.0.1]/', /loopback/],
    ['http://[::ffff:7f00:1]/', /loopback/],
    ['http://[::ffff:10.0.0.1]/', /private/],
    ['http://[::ffff:169.254.169.254]/', /link-local/],
    ['http://[::ffff:93.184.215.14]/', /IPv4-mapped/],
    ['http://[::127.0.0.1]/', /IPv4-compatible/],
    ['http://[64:ff9b::10.0.0.1]/', /NAT64 form of a private/],
    ['http://[2002:c0a8:0101::1]/', /6to4 form of a private/],
  ];
  for (const [url, why] of cases) await refused(url, why);
  assert.equal(addressRefusal('2606:4700:4700::1111'), undefined);
  assert.equal(addressRefusal('2001:4860:4860::8888'), undefined);
});

test('localhost, .local, .internal and single-label hosts are refused by name', async () => {
  await refused('http://localhost:7777/api/status', /localhost/);
  await refused('http://LOCALHOST./', /localhost/);
  await refused('http://app.localhost/', /localhost/);
  await refused('http://printer.local/', /\.local/);
  await refused('http://metadata.google.internal/', /\.internal/);
  await refused('http://intranet/', /single-label/);
  await refused('http://router./', /single-label/);
  assert.equal(hostRefusal('example.com'), undefined);
});

test('a hostname is refused when any address it resolves to is', async () => {
  await refused('https://private.example/', /resolves to 10\.1\.2\.3, a private address/);
  await refused('https://mixed.example/', /resolves to 192\.168\.1\.20/);
  await refused('https://v6private.example/', /unique-local/);
  await assert.rejects(floor.check('https://nowhere.example/'), (e: any) => e.status === 502 && /could not resolve nowhere\.example/.test(e.message));
  const ok = await floor.check('https://public.example/page?q=1');
  assert.equal(ok.hostname, 'public.example');
  assert.equal((await floor.check('http://93.184.215.14/')).hostname, '93.184.215.14');
});

test('the connect-time lookup refuses a private answer (DNS rebinding)', async () => {
  const outcome = await new Promise<{ err: Error | null; address?: string }>((done) =>
    floor.lookup('loop.example', {}, (err, address) => done({ err, address: address as string })),
  );
  assert.match(String(outcome.err?.message), /the engine does not connect to loop\.example: it resolves to 127\.0\.0\.1/);
  const good = await new Promise<{ err: Error | null; address?: string }>((done) =>
    floor.lookup('public.example', {}, (err, address) => done({ err, address: address as string })),
  );
  assert.equal(good.err, null);
  assert.equal(good.address, '93.184.215.14');
});

// A loopback server stands in for a public site that redirects inward. The floor under test is the
// real one, except that the name "site.example" resolves to this loopback server for the connection.
let server: http.Server;
let port: number;
before(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/to-loopback') return res.writeHead(302, { location: `http://127.0.0.1:${port}/secret` }).end();
    if (req.url === '/to-localhost') return res.writeHead(301, { location: `http://localhost:${port}/secret` }).end();
    if (req.url === '/to-private-name') return res.writeHead(307, { location: `http://private.example/` }).end();
    if (req.url?.startsWith('/loop')) {
      const n = Number(req.url.slice(5) || '0');
      return res.writeHead(302, { location: `/loop${n + 1}` }).end();
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('inside');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((r) => server.close(() => r())));

/** The real floor's rules; only the first hop (the test server itself) is let through. */
function floorAllowingFirstHop() {
  const real = createUrlFloor({ resolve });
  let first = true;
  return {
    check: async (url: string | URL) => {
      if (first) {
        first = false;
        return new URL(String(url));
      }
      return real.check(url);
    },
    lookup: dns.lookup as any,
  };
}

test('a redirect to 127.0.0.1, to localhost or to a name resolving privately is refused', async () => {
  for (const [path, why] of [
    ['/to-loopback', /the engine does not fetch http:\/\/127\.0\.0\.1:\d+\/secret: a loopback address/],
    ['/to-localhost', /localhost/],
    ['/to-private-name', /private\.example resolves to 10\.1\.2\.3/],
  ] as const) {
    await assert.rejects(floorGet(`http://127.0.0.1:${port}${path}`, { floor: floorAllowingFirstHop() }), (e: any) => {
      assert.equal(e.status, 403);
      assert.match(e.message, why);
      return true;
    });
  }
});

test('redirects are followed at most five times', async () => {
  const open = { check: async (u: string | URL) => new URL(String(u)), lookup: dns.lookup as any };
  const five = await floorGet(`http://127.0.0.1:${port}/loop`, { floor: open }).catch((e) => e);
  assert.match(String(five.message), /too many redirects \(more than 5\)/);
  // Within the bound it arrives.
  const short = await floorGet(`http://127.0.0.1:${port}/plain`, { floor: open });
  assert.equal(short.body.toString(), 'inside');
});

test('the real engine floor refuses the loopback server itself', async () => {
  const { urlFloor } = await import('../../src/capabilities/web/floor.js');
  await assert.rejects(floorGet(`http://127.0.0.1:${port}/plain`, { floor: urlFloor }), /loopback/);
});

test('floorRequest: a POST gets its 3xx as the answer, a long body is cut or fails as asked, schemeOnly takes http(s) only', async () => {
  const post = await floorRequest(`http://127.0.0.1:${port}/to-loopback`, { floor: schemeOnly, method: 'POST', body: 'x' });
  assert.equal(post.status, 302, 'a body is never replayed to another URL');
  assert.equal(post.headers.location, `http://127.0.0.1:${port}/secret`);
  const cut = await floorRequest(`http://127.0.0.1:${port}/plain`, { floor: schemeOnly, maxBytes: 3 });
  assert.deepEqual([cut.body.toString(), cut.truncated], ['ins', true]);
  await assert.rejects(floorRequest(`http://127.0.0.1:${port}/plain`, { floor: schemeOnly, maxBytes: 3, overflow: 'fail' }), (e: any) => e.status === 502 && /answered more than 3 bytes/.test(e.message));
  await assert.rejects(floorRequest('file:///etc/passwd', { floor: schemeOnly }), (e: any) => e.status === 400 && /not a valid http\(s\) URL/.test(e.message));
});

test('floorRequest: credentials the caller set never follow a redirect to another origin', async () => {
  // Two loopback servers are two origins (the port differs). Each echoes the credentials it received.
  const echo = (req: http.IncomingMessage, res: http.ServerResponse) => res.end(JSON.stringify({ authorization: req.headers.authorization ?? null, cookie: req.headers.cookie ?? null, other: req.headers['x-other'] ?? null }));
  const other = http.createServer(echo);
  await new Promise<void>((ok) => other.listen(0, '127.0.0.1', ok));
  const otherPort = (other.address() as AddressInfo).port;
  const first = http.createServer((req, res) => {
    if (req.url === '/away') return res.writeHead(302, { location: `http://127.0.0.1:${otherPort}/` }).end();
    if (req.url === '/here') return res.writeHead(302, { location: '/echo' }).end();
    echo(req, res);
  });
  await new Promise<void>((ok) => first.listen(0, '127.0.0.1', ok));
  const firstPort = (first.address() as AddressInfo).port;
  try {
    const headers = { Authorization: 'Bearer s3cret', Cookie: 'sid=1', 'X-Other': 'kept' };
    const away = await floorRequest(`http://127.0.0.1:${firstPort}/away`, { floor: schemeOnly, headers });
    assert.deepEqual(JSON.parse(away.body.toString()), { authorization: null, cookie: null, other: 'kept' });
    const here = await floorRequest(`http://127.0.0.1:${firstPort}/here`, { floor: schemeOnly, headers });
    assert.deepEqual(JSON.parse(here.body.toString()), { authorization: 'Bearer s3cret', cookie: 'sid=1', other: 'kept' }, 'same origin keeps them');
  } finally {
    other.close();
    first.close();
  }
});
