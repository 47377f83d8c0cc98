/**
 * GET /api/status throughput: the engine (guard, router, error handling, real status sources)
 * against a bare node:http server answering a same-shaped JSON body. Each server runs in its own
 * process; the load generator (keep-alive, raw sockets) runs here. Rounds alternate between the two
 * so a noisy neighbour on the machine hits both alike; the medians are compared.
 */
import { startFixture } from './lib/child.js';
import { httpLoad } from './lib/http-load.js';
import { fmt, median, result, table } from './lib/report.js';

const CONNECTIONS = 32;
const WARMUP_S = 2;
const MEASURE_S = 3;
const ROUNDS = 5;

const servers = [
  { name: 'engine', fixture: 'engine-server.ts', rps: [] as number[] },
  { name: 'bare node:http', fixture: 'baseline-http.ts', rps: [] as number[] },
];
// The baseline answers the engine's real status body (every registered tool name ...), so both
// sides serialize the same JSON.
const engineServer = await startFixture(servers[0].fixture);
const body = await (await fetch(`http://127.0.0.1:${engineServer.port}/api/status`)).text();
const started = [engineServer, await startFixture(servers[1].fixture, { STATUS_BODY: body })];
console.log(`status body: ${body.length} bytes`);
try {
  for (const s of started) await httpLoad({ port: s.port, path: '/api/status', connections: CONNECTIONS, seconds: WARMUP_S });
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < servers.length; i++) {
      const r = await httpLoad({ port: started[i].port, path: '/api/status', connections: CONNECTIONS, seconds: MEASURE_S });
      if (r.errors) console.log(`${servers[i].name}: ${r.errors} errors`);
      servers[i].rps.push(r.rps);
    }
  }
} finally {
  await Promise.all(started.map((s) => s.stop()));
}
table(servers.map((s) => ({ server: s.name, ...Object.fromEntries(s.rps.map((v, i) => [`r${i + 1} req/s`, fmt(v)])), 'median req/s': fmt(median(s.rps)) })));
result('GET /api/status throughput', 'req/s', median(servers[0].rps), median(servers[1].rps), { ratioAtLeast: 0.7 });
