import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { alive, openTerm as openTermAt, waitGone } from './helpers.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
});
after(() => t.close());

const openTerm = (query: string, headers: Record<string, string> = {}) => openTermAt(t.url.replace(/^http/, 'ws'), query, headers);

test('a real pty: type, read back, resize, reconnect to the live id, killed after the last close', async () => {
  const a = await openTerm('?id=main-1&cols=100&rows=30');
  a.ws.send('echo hi-$((40+2)) pid=$$ size=$(stty size)\r');
  const first = await a.waitFor(/hi-42 pid=(\d+) size=30 100/);
  const shellPid = Number(first[1]);
  assert.ok(alive(shellPid));

  // Resize through the JSON control message; a JSON input message is typed.
  a.ws.send(JSON.stringify({ type: 'resize', cols: 120, rows: 40 }));
  a.ws.send(JSON.stringify({ type: 'input', data: 'echo now=$(stty size)\r' }));
  await a.waitFor(/now=40 120/);

  // A second socket on the same id gets the live shell (same pid) and a replay of what was shown.
  const b = await openTerm('?id=main-1&cols=120&rows=40');
  await b.waitFor(/hi-42 pid=\d+/);
  b.ws.send(Buffer.from('sleep 300 & echo bg=$!; echo again=$$\r')); // a binary frame is raw input
  const again = await b.waitFor(/again=(\d+)/);
  assert.equal(Number(again[1]), shellPid);
  const bg = Number((await b.waitFor(/bg=(\d+)/))[1]);
  await a.waitFor(/again=\d+/); // both sockets see the live output

  // Closing one socket leaves the shell alive for the other.
  a.ws.close();
  await a.closed;
  b.ws.send('echo still=$$\r');
  await b.waitFor(/still=\d+/);
  assert.ok(alive(shellPid));

  // The last socket closes: the shell and its background job are killed.
  b.ws.close();
  await b.closed;
  assert.ok(await waitGone(shellPid), `shell ${shellPid} was killed`);
  assert.ok(await waitGone(bg), `background job ${bg} was killed`);

  // The id now starts a fresh shell.
  const c = await openTerm('?id=main-1&cols=80&rows=24');
  c.ws.send('echo fresh=$$\r');
  const fresh = Number((await c.waitFor(/fresh=(\d+)/))[1]);
  assert.notEqual(fresh, shellPid);
  c.ws.send('exit\r');
  const closed = await c.closed;
  assert.equal(closed.code, 4000);
  assert.match(closed.reason, /shell exited \(code 0\)/);
});

test('bad ids and sizes are refused on the upgrade with a 400 and a reason', async () => {
  for (const q of ['?cols=80&rows=24', '?id=../x&cols=80&rows=24', `?id=${'a'.repeat(65)}`, '?id=ok&cols=0&rows=24', '?id=ok&cols=80&rows=9999', '?id=ok&cols=abc&rows=24', '?id=ok&cols=80.5&rows=24']) {
    await assert.rejects(openTerm(q), (e: any) => {
      assert.equal(e.status, 400, q);
      assert.match(JSON.parse(e.body).error, /terminal id|cols must be/, q);
      return true;
    });
  }
});

test('a bad resize closes that socket with a reason', async () => {
  const a = await openTerm('?id=resize-bad');
  a.ws.send(JSON.stringify({ type: 'resize', cols: -1, rows: 10 }));
  const closed = await a.closed;
  assert.equal(closed.code, 1008);
  assert.match(closed.reason, /cols must be a whole number/);
});

test('the mobile token does not open the terminal, and a foreign Host or Origin is refused', async () => {
  await assert.rejects(openTerm(`?id=x&token=${t.engine.mobileToken}`, { host: 'phone.example:7777' }), (e: any) => e.status === 403);
  await assert.rejects(openTerm('?id=x', { host: 'phone.example', 'x-engine-mobile-token': t.engine.mobileToken }), (e: any) => e.status === 403);
  await assert.rejects(openTerm('?id=x', { origin: 'https://evil.example' }), (e: any) => e.status === 403);
});
