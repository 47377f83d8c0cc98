/**
 * A chat model asked for a dashboard that does not exist publishes onto it, and the dashboard is
 * created from the call (one slot per accepted widget), recorded as the model's; a call whose every
 * widget is refused creates nothing and says why.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startDashboards, toolResult, type DashHarness } from './harness.js';

let h: DashHarness;
before(async () => {
  h = await startDashboards();
});
after(async () => h.close());

async function chatTurn(sessionId: string, message: string) {
  const seq = h.events.events.at(-1)?.seq ?? 0;
  const res = await h.t.api('POST', '/api/chat', { sessionId, message });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const started = await h.events.waitFor((e) => e.kind === 'run.started' && e.sessionId === sessionId && e.seq > seq, 20_000);
  const end = await h.ended(started.runId!);
  assert.equal(end.kind, 'run.completed', JSON.stringify(end));
  return started.runId!;
}

test('publish_dashboard from a chat onto a new id creates the dashboard, as the model', async () => {
  const widgets = [
    { id: 'orders', type: 'stat', title: 'Orders today', data: { value: 42 } },
    { id: 'top', type: 'table', title: 'Top products', span: 3, data: { columns: ['name', 'sold'], rows: [['mug', 12]] } },
  ];
  h.model.script({ toolCalls: [{ id: 'p1', name: 'publish_dashboard', args: { dashboard: 'shop', title: 'Shop', widgets } }] }, { text: 'Your shop dashboard is ready.' });
  const n = h.model.requests.length;
  const runId = await chatTurn('make-shop', 'make me a shop dashboard');
  const answer = toolResult(h.model.requests[n + 1].body, 'p1');
  assert.match(answer, /created dashboard "shop" \(2 slots/);
  assert.match(answer, /accepted: orders, top/);

  const shop = (await h.t.api('GET', '/api/dashboards/shop')).body;
  assert.equal(shop.definition.name, 'Shop');
  assert.equal(shop.definition.layout, 3, 'columns enough for the widest widget');
  assert.deepEqual(shop.definition.slots, [{ id: 'orders', title: 'Orders today' }, { id: 'top', title: 'Top products' }]);
  assert.match(shop.definition.prompt, /Orders today, Top products/);
  assert.deepEqual(shop.document.widgets.map((w: any) => w.id), ['orders', 'top']);
  assert.equal(shop.author.by, 'model');
  assert.equal(shop.author.sessionId, 'make-shop');
  assert.equal(shop.author.runId, runId);
  const changed = h.events.events.find((e) => e.kind === 'dashboards.changed' && e.dashboard === 'shop');
  assert.equal(changed?.by, 'model');
  const listed = (await h.t.api('GET', '/api/dashboards')).body.dashboards.find((d: any) => d.id === 'shop');
  assert.equal(listed.author.by, 'model');

  // A person saving the definition makes it theirs.
  assert.equal((await h.t.api('PUT', '/api/dashboards/shop', { ...shop.definition, prompt: 'Count the orders of today.' })).status, 200);
  assert.equal((await h.t.api('GET', '/api/dashboards/shop')).body.author.by, 'person');
});

test('a call whose every widget is refused creates nothing; a bad id says what a new one needs', async () => {
  h.model.script(
    { toolCalls: [{ id: 'q1', name: 'publish_dashboard', args: { dashboard: 'empty', widgets: [{ id: 'n', type: 'no-such-type', data: {} }] } }] },
    { toolCalls: [{ id: 'q2', name: 'publish_dashboard', args: { dashboard: 'Bad Name', widgets: [{ id: 'n', type: 'stat', data: { value: 1 } }] } }] },
    { text: 'I could not.' },
  );
  const n = h.model.requests.length;
  await chatTurn('refused', 'make one');
  assert.match(toolResult(h.model.requests[n + 1].body, 'q1'), /dashboard "empty" does not exist and was not created[\s\S]*widget "n": type "no-such-type" is not a widget type/);
  assert.match(toolResult(h.model.requests[n + 2].body, 'q2'), /there is no dashboard "Bad Name", and a new one needs an id of lower-case letters/);
  assert.equal((await h.t.api('GET', '/api/dashboards/empty')).status, 404);
});
