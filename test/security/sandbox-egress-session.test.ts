/**
 * Issue 42: network-on commands join one network namespace the engine holds, its egress bridge
 * already listening (src/sandbox/egress-session.ts), instead of each starting a bridge and waiting
 * for it. The floor stays what sandbox-network.test.ts checks; here: the bridge is out of a
 * command's sight and reach (its own pid namespace), it still carries a command's traffic to the
 * proxy (a refused destination answers the proxy's 403), the engine's listeners and the host's
 * loopback stay unreached, a server one command leaves running is reachable by the next, and where
 * no shared namespace can start each command gets a namespace and a bridge of its own as before.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { allowAllGate } from '../../src/tools/types.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
let hostServer: net.Server;
let hostConnections = 0;

before(async () => {
  hostServer = net.createServer((s) => {
    hostConnections++;
    s.end('hello from the host\n');
  });
  await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
  t = await startTestEngine();
  assert.equal((await t.api('PUT', '/api/settings', { sandbox: { network: true } })).status, 200);
  assert.equal((await t.api('GET', '/api/status')).body.sandbox.active, true, 'the sandbox runs here');
});
after(async () => {
  await t.close();
  hostServer.close();
});

async function sh(command: string, engine = t): Promise<string> {
  const ctx = { signal: new AbortController().signal, emit: () => undefined, attended: false, callId: 'egress' };
  return (await engine.engine.tools.call({ callId: `egress-${Math.random()}`, name: 'run_shell', args: { command } }, ctx, { gate: allowAllGate })).text;
}

const node = (script: string) => `"${process.execPath}" -e '${script.replace(/'/g, `'\\''`)}'`;
/** Through the proxy (never the NO_PROXY list): the proxy refuses the engine's own API with a 403. */
const viaProxy = (port: number) => `curl -sS -m 10 -o /dev/null -w 'proxy said %{http_code}\\n' --noproxy '' -x "$HTTP_PROXY" "http://127.0.0.1:${port}/api/settings"`;

test('commands share the egress namespace: the bridge is out of their sight, still carries their traffic, and a server one leaves is reachable by the next', async () => {
  const ps = await sh('for s in /proc/[0-9]*/comm; do cat "$s"; done | sort -u | tr "\\n" " "');
  assert.match(ps, /bash/, ps);
  assert.doesNotMatch(ps, /socat|node/, ps);
  assert.match(await sh(viaProxy(t.engine.port)), /proxy said 403/);

  const left = await sh(`${node('require("http").createServer((q, r) => r.end("from an earlier command")).listen(39400, "127.0.0.1"); setTimeout(() => process.exit(0), 15000)')} > /dev/null 2>&1 &`);
  assert.match(left, /left background processes running in its sandbox/, left);
  const reached = await sh('for i in 1 2 3 4 5 6 7 8 9 10; do curl -sS -m 5 --noproxy "*" http://127.0.0.1:39400/ && break; sleep 0.5; done');
  assert.match(reached, /from an earlier command/, reached);

  // What a shared loopback must not open: the engine and the host's loopback stay out of reach.
  const hostPort = (hostServer.address() as net.AddressInfo).port;
  const raw = await sh(node(`for (const p of [${t.engine.port}, ${hostPort}]) require("net").connect(p, "127.0.0.1").on("connect", () => console.log("CONNECTED " + p)).on("error", (e) => console.log("refused " + e.code))`));
  assert.equal((raw.match(/refused ECONNREFUSED/g) ?? []).length, 2, raw);
  assert.equal(hostConnections, 0);
});

/** The processes this test process started, however deep (the engine runs in it). */
async function descendants(): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid) parents.set(Number(name), ppid);
  }
  const mine = (pid: number): boolean => pid === process.pid || (parents.has(pid) && pid !== parents.get(pid) && mine(parents.get(pid)!));
  return [...parents.keys()].filter((pid) => pid !== process.pid && mine(pid));
}

test("the holder's bridge runs with /proc/sys read-only, as a command does (uid 0 may otherwise write global sysctls)", async () => {
  await sh('true'); // the holder is started by the first network-on command
  let bridge: number | undefined;
  for (const pid of await descendants()) {
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (!cmdline[0].endsWith('bwrap') && cmdline.some((a) => a.includes('TCP-LISTEN:') || a.includes('engine-egress.sock'))) bridge = pid;
  }
  assert.ok(bridge, 'the holder\'s bridge process is found');
  const mounts = await readFile(`/proc/${bridge}/mountinfo`, 'utf8');
  assert.match(mounts, / \/proc\/sys ro,/, mounts);
});

test('where no shared namespace starts, each command gets a namespace and a bridge of its own, with the same floor', async () => {
  const other = await startTestEngine({ sandbox: { egressSession: false } });
  try {
    await other.api('PUT', '/api/settings', { sandbox: { network: true } });
    const out = await sh(`${viaProxy(other.engine.port)}; exit 5`, other);
    assert.match(out, /^exit 5/, out);
    assert.match(out, /proxy said 403/, out);
    assert.doesNotMatch(out, /left background processes|bridge did not start/, out);
    const raw = await sh(node(`require("net").connect(${other.engine.port}, "127.0.0.1").on("connect", () => console.log("CONNECTED")).on("error", (e) => console.log("refused " + e.code))`), other);
    assert.match(raw, /refused ECONNREFUSED/, raw);
  } finally {
    await other.close();
  }
});
