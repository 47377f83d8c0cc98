/**
 * Issue 44 §4 through a real engine: with ENGINE_ALLOW_HOSTS naming loopback services, web_fetch,
 * a workflow `http` node, a push endpoint (a push service over TLS checking every VAPID push) and
 * the sandbox's egress proxy each reach the one named, and each refuses one on the same machine that
 * is not named; the engine's own API stays closed though `localhost` is listed. Last, the real CLI:
 * `--allow-hosts` reaches the engine process through the supervisor.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { allowAllGate } from '../../src/tools/types.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';
import { gateFlow } from '../support/gate-flow.js';
import { until } from '../support/patience.js';
import { SERVING, spawnNode } from '../support/process.js';
import { startFakePushService, type FakePushService } from '../support/push-service.js';

const portOf = (s: http.Server) => (s.address() as AddressInfo).port;
const serve = async (text: string) => {
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(text));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
};

describe('ENGINE_ALLOW_HOSTS in a running engine', () => {
  let named: http.Server;
  let unnamed: http.Server;
  let push: FakePushService;
  let t: TestEngine;
  let events: EventCollector;
  let certDir: string;
  const previousCa = https.globalAgent.options.ca;

  before(async () => {
    named = await serve('named service');
    unnamed = await serve('unnamed service');
    // The push service speaks TLS with a certificate for 127.0.0.1 that this process trusts (as the push bench does).
    certDir = await mkdtemp(path.join(os.tmpdir(), 'allow-hosts-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', path.join(certDir, 'key.pem'), '-out', path.join(certDir, 'cert.pem')], { stdio: 'ignore' });
    const tls = { key: await readFile(path.join(certDir, 'key.pem'), 'utf8'), cert: await readFile(path.join(certDir, 'cert.pem'), 'utf8') };
    https.globalAgent.options.ca = tls.cert;
    push = await startFakePushService({ tls });
    const pushPort = Number(new URL(push.origin).port);
    t = await startTestEngine({ allowHosts: [{ host: '127.0.0.1', port: portOf(named) }, { host: '127.0.0.1', port: pushPort }, { host: 'localhost' }] });
    events = await collectEvents(t.url);
  });
  after(async () => {
    events?.close();
    await t?.close();
    await push?.close();
    https.globalAgent.options.ca = previousCa;
    named.close();
    unnamed.close();
    await rm(certDir, { recursive: true, force: true });
  });

  const call = async (name: string, args: Record<string, unknown>) => {
    const ctx = { signal: new AbortController().signal, emit: () => undefined, attended: false, callId: 'allow' };
    return t.engine.tools.call({ callId: `allow-${Math.random()}`, name, args }, ctx, { gate: allowAllGate });
  };

  it('web_fetch reaches the named service and refuses the one not named', async () => {
    const ok = await call('web_fetch', { url: `http://127.0.0.1:${portOf(named)}/` });
    assert.equal(ok.isError, false, ok.text);
    assert.match(ok.text, /named service/);
    const no = await call('web_fetch', { url: `http://127.0.0.1:${portOf(unnamed)}/` });
    assert.equal(no.isError, true);
    assert.match(no.text, /the engine does not fetch http:\/\/127\.0\.0\.1:\d+\/: a loopback address/);
    assert.doesNotMatch(no.text, /unnamed service/);
    // No route widens the list: the settings a phone can write know no such field.
    for (const body of [{ allowHosts: `127.0.0.1:${portOf(unnamed)}` }, { web: { allowHosts: ['127.0.0.1'] } }]) {
      const put = await t.api('PUT', '/api/settings', body);
      assert.equal(put.status, 400, JSON.stringify(put.body));
    }
    assert.equal((await call('web_fetch', { url: `http://127.0.0.1:${portOf(unnamed)}/` })).isError, true);
  });

  it("the engine's own API stays closed, though localhost is listed on every port", async () => {
    const own = await call('web_fetch', { url: `http://localhost:${t.engine.port}/api/browser` });
    assert.equal(own.isError, true);
    assert.match(own.text, /where the engine itself listens on port \d+, which no allowed host opens/);
    const direct = await call('web_fetch', { url: `http://127.0.0.1:${t.engine.port}/api/status` });
    assert.match(direct.text, /a loopback address/);
  });

  it('a workflow http node reaches the named service and fails on the one not named', async () => {
    const flow = (id: string, port: number) => ({
      id,
      name: id,
      formatVersion: 2,
      group: null,
      nodes: [
        { id: 'start', type: 'trigger.manual' },
        { id: 'get', type: 'http', config: { method: 'GET', url: `http://127.0.0.1:${port}/status` } },
      ],
      edges: [{ from: 'start', to: 'get' }],
    });
    const outcome = async (id: string, port: number) => {
      assert.equal((await t.api('PUT', `/api/workflows/${id}`, flow(id, port))).status, 200);
      const run = await t.api('POST', `/api/runs/${id}`, {});
      assert.equal(run.status, 202, JSON.stringify(run.body));
      return events.waitFor((e) => e.runId === run.body.runId && /^(node\.completed|node\.failed)$/.test(e.kind) && e.nodeId === 'get', 30_000);
    };
    const ok = await outcome('reach-named', portOf(named));
    assert.equal(ok.kind, 'node.completed', JSON.stringify(ok));
    assert.match(JSON.stringify(ok), /named service/);
    const no = await outcome('reach-unnamed', portOf(unnamed));
    assert.equal(no.kind, 'node.failed');
    assert.match(JSON.stringify(no), /the engine does not fetch http:\/\/127\.0\.0\.1:\d+\/status: a loopback address/);
  });

  it('a push endpoint on the named service is taken and pushed to; one not named is refused at subscribe', async () => {
    assert.equal((await t.api('PUT', '/api/settings', { push: { subject: 'mailto:ops@example.com' } })).status, 200);
    const phone = push.subscriber('phone-a');
    const taken = await t.api('POST', '/api/mobile/push/subscribe', { subscription: phone.subscription, deviceId: 'phone-a' });
    assert.deepEqual(taken.body, { ok: true, deviceId: 'phone-a' });
    const from = push.received.length;
    await t.api('PUT', '/api/workflows/wait-here', gateFlow('wait-here', 'Ship it?'));
    const run = await t.api('POST', '/api/runs/wait-here', {});
    // The runs of the tests above end in a push of their own once their hold is over, which on a
    // busy machine may come after this subscribe: the gate's push is the one this test waits for.
    const arrived = await push.next((p) => p.id === 'phone-a' && (p.refused !== undefined || JSON.parse(p.text!).kind === 'gate'), from);
    assert.equal(arrived.refused, undefined, arrived.refused);
    assert.equal(JSON.parse(arrived.text!).kind, 'gate');
    await t.api('POST', '/api/gates/resolve', { runId: run.body.runId, nodeId: 'review', approved: true });

    const elsewhere = { ...push.subscriber('phone-b').subscription, endpoint: `https://127.0.0.1:${portOf(unnamed)}/push/phone-b` };
    const refused = await t.api('POST', '/api/mobile/push/subscribe', { subscription: elsewhere, deviceId: 'phone-b' });
    assert.equal(refused.status, 400);
    assert.match(refused.body.error, /subscription\.endpoint cannot be pushed to: the engine does not fetch https:\/\/127\.0\.0\.1:\d+\/push\/phone-b: a loopback address/);
  });

  it("the sandbox's egress proxy carries a command to the named service and refuses the one not named", async (ctx) => {
    assert.equal((await t.api('PUT', '/api/settings', { sandbox: { network: true } })).status, 200);
    if (!(await t.api('GET', '/api/status')).body.sandbox?.active) return ctx.skip('no sandbox can start on this machine');
    // The sandbox's own loopback is not the host's: the host's service is reached through the proxy.
    const curl = (port: number) => `curl -sS -m 20 --noproxy '' -x "$HTTP_PROXY" -w '\\n%{http_code}\\n' http://127.0.0.1:${port}/`;
    const ok = await call('run_shell', { command: curl(portOf(named)) });
    assert.match(ok.text, /named service\n200/, ok.text);
    const no = await call('run_shell', { command: curl(portOf(unnamed)) });
    assert.match(no.text, /the engine does not fetch http:\/\/127\.0\.0\.1:\d+\/: a loopback address\n+403/, no.text);
    assert.doesNotMatch(no.text, /unnamed service/);
  });
});

it('the real CLI: --allow-hosts reaches the engine process through the supervisor, and only the hosts it names', async () => {
  const named = await serve('named by flag');
  const unnamed = await serve('not named');
  const home = await tempDir();
  const engine = spawnNode(['src/main.ts', 'serve', '--port', '0', '--gateway-port', '0', '--home', home, '--allow-hosts', `127.0.0.1:${portOf(named)}`], { ENGINE_SECRETS: 'file', ENGINE_ALLOW_HOSTS: 'not:a:list' });
  try {
    const url = (await engine.waitForLine(SERVING, { timeoutMs: 60_000 })).match[1];
    await engine.waitForLine(new RegExp(`the URL floor lets through the private hosts 127\\.0\\.0\\.1:${portOf(named)} \\(ENGINE_ALLOW_HOSTS\\), and no other`));
    const reach = async (id: string, port: number) => {
      const flow = { id, name: id, formatVersion: 2, group: null, nodes: [{ id: 'start', type: 'trigger.manual' }, { id: 'get', type: 'http', config: { url: `http://127.0.0.1:${port}/` } }], edges: [{ from: 'start', to: 'get' }] };
      await fetch(`${url}/api/workflows/${id}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(flow) });
      const { runId } = await (await fetch(`${url}/api/runs/${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json();
      return until(`run ${runId} to end`, async () => {
        const { events } = await (await fetch(`${url}/api/runs/${runId}/events`)).json();
        return events.some((e: { kind: string }) => e.kind === 'run.completed' || e.kind === 'run.failed') && JSON.stringify(events);
      });
    };
    assert.match(await reach('by-flag', portOf(named)), /named by flag/);
    const refused = await reach('not-by-flag', portOf(unnamed));
    assert.match(refused, /the engine does not fetch http:\/\/127\.0\.0\.1:\d+\/: a loopback address/);
    assert.doesNotMatch(refused, /not named/);
  } finally {
    engine.kill('SIGTERM');
    await engine.exited;
    named.close();
    unnamed.close();
    await rm(home, { recursive: true, force: true });
  }
});

it('a bad list stops the start with one line and exit 78, from the variable or the flag', async () => {
  const home = await tempDir();
  try {
    for (const [args, env, said] of [
      [[], { ENGINE_ALLOW_HOSTS: 'wiki.corp,http://10.0.0.5' }, /^engine: ENGINE_ALLOW_HOSTS: "http:\/\/10\.0\.0\.5" is a URL, not a host; give host or host:port entries separated by commas/],
      [['--allow-hosts', '10.0.0.0/8'], {}, /^engine: --allow-hosts: "10\.0\.0\.0\/8" is a range or a path; name each host/],
    ] as const) {
      const p = spawnNode(['src/main.ts', 'serve', '--port', '0', '--home', home, ...args], { ENGINE_SECRETS: 'file', ...env });
      const { code } = await p.exited;
      assert.equal(code, 78, p.errLines.join('\n'));
      const text = p.errLines.filter((l) => l.trim());
      assert.equal(text.length, 1, text.join('\n'));
      assert.match(text[0], said);
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});
