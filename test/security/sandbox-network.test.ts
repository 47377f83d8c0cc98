/**
 * Issue 22 §2: a network-on sandbox has its own network namespace whose only way out is the
 * engine's egress proxy, which applies the URL floor. From a sandboxed run_shell, raw sockets to the
 * engine's API and gateway (on loopback, on ::1, on this machine's own address; sent and closed at
 * once, as the peer check used to lose) reach nothing, so the settings a request would switch off
 * stay on; the proxy refuses the same destinations by CONNECT and by plain HTTP; a host loopback
 * server stays unreached; and `npm view` against a registry stand-in reached only through the proxy
 * works. The stand-in listens on the host's loopback, which the floor refuses, so this engine's proxy
 * gets a test-only floor that maps the one name `registry.test` to it (an engine start option that
 * no model or API call can set); every other destination meets the real floor.
 * Network-on commands share one namespace the engine holds (issue 42): sandbox-egress-session.test.ts.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { after, before, test } from 'node:test';
import { urlFloor, type UrlFloor } from '../../src/capabilities/web/floor.js';
import { allowAllGate } from '../../src/tools/types.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

const STAND_IN = 'registry.test';
let registryPort = 0;
let registryHits = 0;

/** The real floor, except that `registry.test` is the stand-in registry on the host's loopback. */
const egressFloor: UrlFloor = {
  async check(input) {
    const url = new URL(String(input));
    return url.hostname === STAND_IN ? url : urlFloor.check(input);
  },
  lookup: ((hostname: string, options: any, callback: any) => {
    if (hostname !== STAND_IN) return urlFloor.lookup(hostname, options, callback);
    if (options?.all) return callback(null, [{ address: '127.0.0.1', family: 4 }]);
    callback(null, '127.0.0.1', 4);
  }) as net.LookupFunction,
};

let t: TestEngine;
let registry: http.Server;
let hostServer: net.Server;
let hostConnections = 0;
let apiPort: number;
let gatewayPort: number;

before(async () => {
  registry = http.createServer((req, res) => {
    registryHits++;
    if (req.url?.replace(/^\//, '') !== 'tiny-pkg') return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
    const tarball = `http://${STAND_IN}:${registryPort}/tiny-pkg/-/tiny-pkg-1.4.2.tgz`;
    const doc = {
      _id: 'tiny-pkg',
      name: 'tiny-pkg',
      description: 'served by the stand-in',
      'dist-tags': { latest: '1.4.2' },
      versions: { '1.4.2': { name: 'tiny-pkg', version: '1.4.2', description: 'served by the stand-in', dist: { tarball, shasum: '0'.repeat(40) } } },
      time: { created: '2026-01-01T00:00:00.000Z', modified: '2026-01-01T00:00:00.000Z', '1.4.2': '2026-01-01T00:00:00.000Z' },
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  registryPort = (registry.address() as net.AddressInfo).port;
  hostServer = net.createServer((s) => {
    hostConnections++;
    s.end('hello from the host\n');
  });
  await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));

  t = await startTestEngine({ sandbox: { egressFloor } });
  apiPort = t.engine.port;
  gatewayPort = (await t.api('GET', '/api/models')).body.gateway.port;
  assert.equal((await t.api('PUT', '/api/settings', { sandbox: { network: true } })).status, 200);
});
after(async () => {
  await t.close();
  registry.close();
  hostServer.close();
});

async function sh(command: string, engine = t): Promise<string> {
  const ctx = { signal: new AbortController().signal, emit: () => undefined, attended: false, callId: 'net' };
  const out = await engine.engine.tools.call({ callId: `net-${Math.random()}`, name: 'run_shell', args: { command } }, ctx, { gate: allowAllGate });
  return out.text;
}

const node = (script: string) => `"${process.execPath}" -e '${script.replace(/'/g, `'\\''`)}'`;
const external = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && !a.internal && a.family === 'IPv4')?.address;

test('the sandbox is on with the network, and a raw socket reaches no engine listener, even one sent and closed at once', async () => {
  const hosts = ['127.0.0.1', '::1', 'localhost', ...(external ? [external] : [])];
  const ports = [apiPort, gatewayPort];
  const body = JSON.stringify({ sandbox: { mode: 'off' } });
  // Each attempt writes a settings change and closes at once (the race the peer check lost), then
  // also tries a full exchange; every one must fail to connect.
  const script = `
    const net = require("net");
    const targets = ${JSON.stringify(hosts.flatMap((h) => ports.map((p) => [h, p])))};
    const req = (h, p) => "PUT /api/settings HTTP/1.1\\r\\nHost: 127.0.0.1:" + p + "\\r\\nContent-Type: application/json\\r\\nContent-Length: ${body.length}\\r\\nConnection: close\\r\\n\\r\\n" + ${JSON.stringify(body)};
    let pending = targets.length * 2;
    const done = () => { if (--pending === 0) console.log("finished"); };
    for (const [h, p] of targets) {
      const fast = net.connect({ host: h, port: p }, () => { fast.end(req(h, p)); console.log("CONNECTED fast " + h + " " + p); });
      fast.on("error", (e) => console.log("refused " + h + " " + p + " " + e.code)).on("close", done);
      const full = net.connect({ host: h, port: p }, () => full.write(req(h, p)));
      let got = "";
      full.on("data", (d) => (got += d)).on("error", () => {}).on("close", () => { if (got) console.log("ANSWERED " + h + " " + p + " " + got.split("\\r\\n")[0]); done(); });
    }`;
  const out = await sh(node(script));
  assert.match(out, /finished/, out);
  assert.doesNotMatch(out, /CONNECTED|ANSWERED/, out);
  assert.equal((out.match(/^refused /gm) ?? []).length, hosts.length * ports.length, out);
  const settings = (await t.api('GET', '/api/settings')).body;
  assert.equal(settings.sandbox.mode, 'workspace-write');
  assert.equal(settings.sandbox.network, true);
  // And a server on the host's loopback is not reachable either: the namespace's loopback is its own.
  const hostPort = (hostServer.address() as net.AddressInfo).port;
  const probe = await sh(node(`require("net").connect(${hostPort}, "127.0.0.1").on("data", (d) => console.log("got " + d)).on("error", (e) => console.log("error " + e.code))`));
  assert.match(probe, /error ECONNREFUSED/, probe);
  assert.equal(hostConnections, 0);
});

test('the proxy refuses the engine, loopback and this machine by CONNECT and by plain HTTP', async () => {
  const targets = [`127.0.0.1:${apiPort}`, `localhost:${apiPort}`, `[::1]:${gatewayPort}`, `0x7f.1:${apiPort}`, `127.0.0.1:${(hostServer.address() as net.AddressInfo).port}`, ...(external ? [`${external}:${apiPort}`] : [])];
  for (const target of targets) {
    const out = await sh(`curl -sS -m 10 -o /dev/null -w '%{http_code}\\n' -p -x "$HTTPS_PROXY" "http://${target}/api/settings"; curl -sS -m 10 -o /dev/null -w '%{http_code}\\n' --noproxy '' -x "$HTTP_PROXY" "http://${target}/api/settings"`);
    assert.doesNotMatch(out, /\b200\b/, `${target}: ${out}`);
    assert.match(out, /403/, `${target}: ${out}`);
  }
  assert.equal(hostConnections, 0);
  assert.equal((await t.api('GET', '/api/settings')).body.sandbox.mode, 'workspace-write');
});

test('npm view reaches a registry only through the proxy, and the command sees the proxy settings', async () => {
  const before = registryHits;
  const out = await sh(`npm view tiny-pkg version description --registry http://${STAND_IN}:${registryPort}/`);
  assert.match(out, /^exit 0/, out);
  assert.match(out, /1\.4\.2/, out);
  assert.match(out, /served by the stand-in/, out);
  assert.ok(registryHits > before, 'the stand-in registry answered');
  // Without the proxy the same registry is unreachable from inside (no DNS, no route).
  const hits = registryHits;
  const direct = await sh(`for v in $(env | grep -i proxy | cut -d= -f1); do unset "$v"; done; npm view tiny-pkg version --registry http://${STAND_IN}:${registryPort}/ --fetch-retries 0`);
  assert.doesNotMatch(direct, /^exit 0/, direct);
  assert.doesNotMatch(direct, /1\.4\.2/, direct);
  assert.equal(registryHits, hits);
});

test('the bridge is the sandbox\'s own: a command ends when it ends, with its exit code, and only what it left behind is reported', async () => {
  const quick = await sh('exit 3');
  assert.match(quick, /^exit 3/, quick);
  assert.doesNotMatch(quick, /left background processes|bridge did not start/, quick);
  const left = await sh('sleep 2 > /dev/null 2>&1 &');
  assert.match(left, /left background processes running in its sandbox/, left);
});

test('the node bridge (where socat is missing) carries the same traffic, and is the sandbox\'s own too', async () => {
  const other = await startTestEngine({ sandbox: { egressFloor, egressBridge: 'node' } });
  try {
    await other.api('PUT', '/api/settings', { sandbox: { network: true } });
    const out = await sh(`npm view tiny-pkg version --registry http://${STAND_IN}:${registryPort}/; exit 4`, other);
    assert.match(out, /^exit 4/, out);
    assert.match(out, /1\.4\.2/, out);
    assert.doesNotMatch(out, /left background processes|bridge did not start/, out);
    const raw = await sh(node(`require("net").connect(${apiPort}, "127.0.0.1").on("connect", () => console.log("CONNECTED")).on("error", (e) => console.log("refused " + e.code))`), other);
    assert.match(raw, /refused ECONNREFUSED/, raw);
  } finally {
    await other.close();
  }
});
