import assert from 'node:assert/strict';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Gate, PermissionRequest } from '../../src/tools/types.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
let server: http.Server;
let base: string;
let fetches = 0;
const big = 'x'.repeat(30_000);

before(async () => {
  server = http.createServer((req, res) => {
    fetches++;
    if (req.url === '/skill.md') {
      res.setHeader('content-type', 'text/markdown');
      res.end(`---\nname: remote\ndescription: A remote skill\n---\nDo the remote thing (fetch ${fetches}).\n`);
    } else if (req.url === '/big.md') {
      res.end(big + 'END');
    } else if (req.url === '/hop') {
      res.statusCode = 302;
      res.setHeader('location', '/skill.md');
      res.end();
    } else {
      res.statusCode = 404;
      res.end('no');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The loopback server is below the URL floor; this test alone lifts the floor for 127.0.0.1.
  t = await startTestEngine({ skillUrlFloor: { check: async (u) => (typeof u === 'string' ? new URL(u) : u), lookup: dns.lookup } });
});
after(async () => {
  await t.close();
  await new Promise((r) => server.close(r));
});

function recordingGate(allow: boolean): Gate & { asked: PermissionRequest[] } {
  const asked: PermissionRequest[] = [];
  return {
    asked,
    check: async (_tool, request) => {
      asked.push(request);
      return allow ? { allow: true } : { allow: false, reason: `Permission denied for ${request.key}` };
    },
  };
}

const call = (args: Record<string, unknown>, gate: Gate) =>
  t.engine.tools.call({ callId: 'c1', name: 'load_skill', args }, { signal: new AbortController().signal, emit: (k, p) => t.engine.bus.emit(k, p), attended: true }, { gate });

test('a URL skill asks permission per host (class unknown), is fetched fresh each call, and is never clipped', async () => {
  const gate = recordingGate(true);
  const first = await call({ url: `${base}/skill.md` }, gate);
  assert.equal(first.isError, false, first.text);
  assert.match(first.text, /Do the remote thing \(fetch \d+\)/);
  const host = new URL(base).host;
  assert.deepEqual(
    gate.asked.map((r) => [r.class, r.key]),
    [['unknown', `load_skill(${host})`]],
  );
  const n1 = Number(/fetch (\d+)/.exec(first.text)![1]);
  const second = await call({ url: `${base}/skill.md` }, gate);
  assert.equal(Number(/fetch (\d+)/.exec(second.text)![1]), n1 + 1, 'fetched again, not cached');

  const redirected = await call({ url: `${base}/hop` }, gate);
  assert.match(redirected.text, /Do the remote thing/);

  const large = await call({ url: `${base}/big.md` }, gate);
  assert.equal(large.isError, false);
  assert.ok(large.text.endsWith('END'), 'a loaded skill is exempt from the 24 000-character clip');
  assert.ok(large.text.length > 30_000);

  // A name load does not ask for a host.
  const byName = recordingGate(true);
  await call({ name: 'nothing-here' }, byName);
  assert.deepEqual(byName.asked.map((r) => r.key), ['load_skill']);
});

test('a denied host is refused and nothing is fetched', async () => {
  const before = fetches;
  const out = await call({ url: `${base}/skill.md` }, recordingGate(false));
  assert.equal(out.isError, true);
  assert.match(out.text, /Permission denied for load_skill\(/);
  assert.equal(fetches, before);
});

test('bad URLs and both-or-neither arguments are refused with sentences', async () => {
  const gate = recordingGate(true);
  assert.match((await call({ url: 'ftp://example.com/x' }, gate)).text, /only http and https/);
  assert.match((await call({ url: 'not a url' }, gate)).text, /is not a URL/);
  assert.match((await call({}, gate)).text, /exactly one of name or url/);
  assert.match((await call({ url: `${base}/missing.md` }, gate)).text, /answered 404/);
});

test('without the override, the URL floor refuses loopback and private hosts', async () => {
  const strict = await startTestEngine();
  try {
    const out = await strict.engine.tools.call(
      { callId: 'c2', name: 'load_skill', args: { url: `${base}/skill.md` } },
      { signal: new AbortController().signal, emit: () => undefined, attended: true },
      { gate: recordingGate(true) },
    );
    assert.equal(out.isError, true);
    assert.match(out.text, /the engine does not fetch http:\/\/127\.0\.0\.1:\d+\/skill\.md: a loopback address/);
    for (const url of ['http://localhost/x', 'http://10.0.0.8/x', 'http://printer.local/x', 'http://intranet/x', 'http://[::1]/x', 'http://169.254.169.254/latest']) {
      const r = await strict.engine.tools.call({ callId: 'c3', name: 'load_skill', args: { url } }, { signal: new AbortController().signal, emit: () => undefined, attended: true }, { gate: recordingGate(true) });
      assert.equal(r.isError, true, url);
      assert.match(r.text, /the engine does not fetch /, url);
    }
  } finally {
    await strict.close();
  }
});

test('through the real gate: an attended URL load prompts per host, and "always" covers that host only', async () => {
  const { collectEvents } = await import('../support/events.js');
  const events = await collectEvents(t.url);
  const run = t.engine.runs.start({ source: 'test' });
  const port = new URL(base).port;
  const load = (callId: string, url: string) =>
    t.engine.tools.call({ callId, name: 'load_skill', args: { url } }, { signal: run.signal, emit: run.emit, runId: run.id, attended: true });
  try {
    const pending = load('u1', `${base}/skill.md`);
    const asked = await events.waitFor((e) => e.kind === 'permission.requested' && e.callId === 'u1');
    assert.equal(asked.key, `load_skill(127.0.0.1:${port})`);
    const res = await t.api('POST', '/api/permissions/resolve', { runId: run.id, callId: 'u1', decision: 'allow', scope: 'always' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match((await pending).text, /Do the remote thing/);

    // Same host: the rule answers, no prompt.
    const again = await load('u2', `${base}/skill.md`);
    assert.match(again.text, /Do the remote thing/);
    assert.ok(!events.events.some((e) => e.kind === 'permission.requested' && e.callId === 'u2'));

    // Another host (same server, named differently) asks again.
    const other = load('u3', `http://localhost:${port}/skill.md`);
    const asked3 = await events.waitFor((e) => e.kind === 'permission.requested' && e.callId === 'u3');
    assert.equal(asked3.key, `load_skill(localhost:${port})`);
    await t.api('POST', '/api/permissions/resolve', { runId: run.id, callId: 'u3', decision: 'deny' });
    const denied = await other;
    assert.equal(denied.isError, true);
  } finally {
    await run.finish('completed');
    events.close();
  }
});
