import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
});
after(() => t.close());

interface Term {
  ws: WebSocket;
  output: () => string;
  waitFor(re: RegExp, ms?: number): Promise<RegExpExecArray>;
  closed: Promise<{ code: number; reason: string }>;
}

function openTerm(query: string, headers: Record<string, string> = {}): Promise<Term> {
  const ws = new WebSocket(t.url.replace(/^http/, 'ws') + '/term' + query, { headers });
  let out = '';
  const waiters: Array<() => void> = [];
  ws.on('message', (data) => {
    out += String(data);
    for (const w of [...waiters]) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  const term: Term = {
    ws,
    output: () => out,
    closed,
    waitFor(re, ms = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(out);
          if (m) {
            waiters.splice(waiters.indexOf(check), 1);
            clearTimeout(timer);
            resolve(m);
          }
        };
        const timer = setTimeout(() => reject(new Error(`no ${re} in terminal output within ${ms} ms: ${JSON.stringify(out.slice(-500))}`)), ms);
        waiters.push(check);
        check();
      });
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(term));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused with ${res.statusCode}: ${body}`), { status: res.statusCode, body })));
    });
    ws.once('error', reject);
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
async function waitGone(pid: number, ms = 30_000) {
  const end = Date.now() + ms;
  while (alive(pid) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

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
