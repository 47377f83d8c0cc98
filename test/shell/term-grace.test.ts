import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { realpath } from 'node:fs/promises';
import os from 'node:os';
import { after, before, test } from 'node:test';
import { Guard } from '../../src/http/guard.js';
import { termSocket } from '../../src/http/sockets/term.js';
import { attachSockets } from '../../src/http/sockets/upgrade.js';
import { openTerm, waitGone } from './helpers.js';

// The reattach grace on its own: a terminal socket on a plain server with a long grace, so a socket
// that closes and comes back finds the same shell however loaded the machine is.
let server: http.Server;
let port: number;
let term: ReturnType<typeof termSocket>;
before(async () => {
  const cwd = await realpath(os.tmpdir());
  term = termSocket({ cwd: () => cwd, env: () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? cwd }), graceMs: 60_000, maxSessions: 1 });
  server = http.createServer((_req, res) => res.writeHead(404).end());
  attachSockets(server, new Guard(() => port, () => 'token'), [term]);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
after(() => {
  term.close();
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

const open = (id: string) => openTerm(`ws://127.0.0.1:${port}`, `?id=${id}&cols=80&rows=24`);

test('a socket that closes and comes back within the grace finds the same shell, with a replay', async () => {
  const a = await open('grace');
  a.ws.send('echo first=$$\r');
  const pid = Number((await a.waitFor(/first=(\d+)/))[1]);
  a.ws.close();
  await a.closed;
  assert.deepEqual(term.sessions(), ['grace']);
  const b = await open('grace');
  await b.waitFor(/first=\d+/); // the replay
  b.ws.send('echo second=$$\r');
  assert.equal(Number((await b.waitFor(/second=(\d+)/))[1]), pid);
  // The cap (1 here) refuses a new id while the live one stays reachable.
  await assert.rejects(open('another'), /409/);
  assert.deepEqual(term.sessions(), ['grace']);
  b.ws.close();
  // Closing the handler (engine shutdown) kills terminals still in their grace.
  await b.closed;
  term.close();
  assert.ok(await waitGone(pid), `shell ${pid} was killed`);
  assert.deepEqual(term.sessions(), []);
});
