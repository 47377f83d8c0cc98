/**
 * Scale curves of a work board (issue 34) at 100, 1k and 10k items: the board's list
 * (GET /api/work?project=) and moving one item to another lane (PUT /api/work/<project>/<key>
 * {status}), reading one item, and creating one (POST /api/work/<project> {kind, title}, issue 42). The
 * board is made through the API (PUT {}), its item files written straight to .work/<project>/items/
 * with the engine's own item formatter; each size checks the list holds every item and that a new
 * item gets the next key and goes last. Expected: the list linear; a move, a read and a create flat.
 *
 * Times are CPU time of the one process (engine and client, every thread: bench/lib/scale-home.ts
 * says why), medians.
 *
 *   SCALE=0.1 node --import tsx bench/scale-board.bench.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatItem } from '../src/capabilities/work/item-file.js';
import type { WorkItem } from '../src/capabilities/work/types.js';
import { type Curve, printCurve, sizes } from './lib/curve.js';
import { eachSize, get, getJson, medianCpuMs, request, withEngine } from './lib/scale-home.js';

const SIZES = sizes([100, 1_000, 10_000]);
const LANES = ['Backlog', 'Todo', 'In Progress', 'Done'];

function writeItems(dir: string, n: number): void {
  mkdirSync(path.join(dir, 'items'), { recursive: true });
  for (let i = 1; i <= n; i++) {
    const item: WorkItem = {
      key: `BIG-${i}`,
      project: 'big',
      kind: i % 5 ? 'task' : 'bug',
      title: `Item ${i}: make the thing work`,
      status: LANES[i % LANES.length],
      assignee: i % 3 ? null : 'sam',
      labels: i % 4 ? [] : ['api'],
      estimate: null,
      priority: ['low', 'medium', 'high'][i % 3],
      rank: i,
      fields: {},
      archived: false,
      parent: null,
      created: '2026-01-01T00:00:00.000Z',
      updated: '2026-01-01T00:00:00.000Z',
      body: `What item ${i} is about, in a sentence or two.`,
      activity: [],
    };
    writeFileSync(path.join(dir, 'items', `BIG-${i}.md`), formatItem(item, `2026-01-01T00:00:00Z person: created task "Item ${i}" in ${item.status}`));
  }
  writeFileSync(path.join(dir, 'counter.json'), JSON.stringify({ next: n + 1 }) + '\n');
}

const curves = {
  list: { path: 'GET /api/work?project= (whole board)', unit: 'items', expected: 'linear', points: [] } as Curve,
  move: { path: 'PUT /api/work/<project>/<key> {status} (move)', unit: 'items', expected: 'flat', points: [] } as Curve,
  read: { path: 'GET /api/work/<project>/<key>', unit: 'items', expected: 'flat', points: [] } as Curve,
  create: { path: 'POST /api/work/<project> {kind, title} (create)', unit: 'items', expected: 'flat', points: [] } as Curve,
};

await eachSize('board', SIZES, (n, home, warm) =>
  withEngine(home, async (engine) => {
    await request(engine.url + '/api/work/big', 'PUT', { prefix: 'BIG' });
    writeItems(path.join(home, 'workspace', '.work', 'big'), n);
    const { boards } = await getJson(engine, '/api/work?project=big');
    if (boards[0].items.length !== n) throw new Error(`the board lists ${boards[0].items.length} items of ${n} written`);
    const key = `BIG-${Math.ceil(n / 2)}`;
    let k = 0;
    const move = () => request(engine.url + `/api/work/big/${key}`, 'PUT', { status: LANES[k++ % LANES.length] });
    if (JSON.parse((await move()).text).item?.status !== LANES[0]) throw new Error('the move did not land');
    let made = 0;
    const create = () => request(engine.url + '/api/work/big', 'POST', { kind: 'task', title: `New item ${++made}` });
    const first = JSON.parse((await create()).text).item;
    if (first?.key !== `BIG-${n + 1}` || first.rank !== n + 1) throw new Error(`the new item is ${first?.key} at rank ${first?.rank}; BIG-${n + 1} at rank ${n + 1} was expected`);
    if (!warm) {
      curves.create.points.push({ size: n, ms: await medianCpuMs(create, 9) });
      curves.list.points.push({ size: n, ms: await medianCpuMs(() => get(engine, '/api/work?project=big'), 5) });
      curves.move.points.push({ size: n, ms: await medianCpuMs(move, 9) });
      curves.read.points.push({ size: n, ms: await medianCpuMs(() => get(engine, `/api/work/big/${key}`), 9) });
    }
  }),
);
for (const c of Object.values(curves)) printCurve(c);
