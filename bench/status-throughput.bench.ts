/**
 * GET /api/status throughput: the engine (guard, router, schemas, error handling, real status
 * sources) against a bare node:http server answering the engine's own status body, serialized per
 * request as the engine does. Each server runs in its own process and so does the load generator
 * (keep-alive, raw sockets; wrk and autocannon are not installed here). Rounds alternate (ABBA) so
 * a noisy neighbour hits both alike; medians and spread are compared.
 */
import { startFixture } from './lib/child.js';
import { startLoadGenerator } from './lib/http-load.js';
import { pinApart } from './lib/pin.js';
import { result, table } from './lib/report.js';
import { alternate, describe, loadNote } from './lib/rounds.js';

const CONNECTIONS = 32;
const WARMUP_S = 2;
const MEASURE_S = 3;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);

const engine = await startFixture('engine-server.ts');
const body = await (await fetch(`http://127.0.0.1:${engine.port}/api/status`)).text();
const bare = await startFixture('baseline-http.ts', { STATUS_BODY: body });
const load = await startLoadGenerator();
console.log(`status body: ${body.length} bytes; ${pinApart([engine.child.pid!, bare.child.pid!], load.pid)}`);
try {
  const round = (port: number, seconds: number) => async () => {
    const r = await load.run({ port, path: '/api/status', connections: CONNECTIONS, seconds });
    if (r.errors) console.log(`port ${port}: ${r.errors} errors`);
    return r.rps;
  };
  await round(engine.port, WARMUP_S)();
  await round(bare.port, WARMUP_S)();
  const s = await alternate(ROUNDS, { engine: round(engine.port, MEASURE_S), bare: round(bare.port, MEASURE_S) }, { warmup: 0 });
  console.log(await loadNote());
  table([{ 'engine req/s': describe(s.engine, 0), 'bare node:http req/s': describe(s.bare, 0) }]);
  result('GET /api/status throughput', 'req/s', s.engine, s.bare, { ratioAtLeast: 0.9 });
} finally {
  await Promise.all([engine.stop(), bare.stop(), load.stop()]);
}
