/**
 * publish_dashboard's answer to malformed widgets, sentence by sentence, as the build's model reads
 * it over the wire: each names the widget, the JSON path and what is allowed (or the data's columns).
 * The good widget of the same call is accepted and published.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startDashboards, toolResult, type DashHarness } from './harness.js';

let h: DashHarness;
before(async () => {
  h = await startDashboards();
  await h.workspaceFile('data.txt', 'hello');
});
after(async () => h.close());

const rows = { values: [{ a: 1 }] };
const MARKS = '"bar", "line", "area", "point", "circle", "square", "tick", "rule", "rect", "arc", "text", "trail", "boxplot", "errorbar", "errorband"';
const PREDICATE = 'a field predicate {field, timeUnit, equal, lt, lte, gt, gte, range, oneOf, valid}, or all of {and}, or any of {or}, or the negation {not}; a predicate is an object; an expression string does not run on the server';

/** [widget, the exact lines the answer must hold for it]. */
const CASES: Array<[unknown, string[]]> = [
  ['just a string', ['widget "#1": widgets[0] must be an object {id, type, data} (got string)']],
  [{ type: 'stat', data: { value: 1 } }, ['widget "#2": widgets[1] has no id; give each widget an id (letters, digits, - or _), the id of the slot it fills']],
  [{ id: 'bad id', type: 'stat', data: { value: 1 } }, ['widget "bad id": widgets[2].id "bad id" must be letters, digits, - or _ (at most 64)']],
  [{ id: 'w4', type: 'pie', data: {} }, ['widget "w4": type "pie" is not a widget type (types: stat, table, list, markdown, progress, kv, chart)']],
  [{ id: 'count', type: 'kv', data: { pairs: [] } }, ['widget "count": type must be "stat" to fill the slot "count" (got "kv")']],
  [{ id: 'w6', type: 'stat', data: { value: {} } }, ['widget "w6": data.value must be a number or a string (got object)']],
  [{ id: 'w7', type: 'stat', data: { value: 1, delta: '5%', trend: [1, 'x'] } }, ['widget "w7": data.delta must be a number (got string)', 'widget "w7": data.trend[1] must be a number (got string)']],
  [
    { id: 'w8', type: 'stat', span: 5, data: { value: 1, colour: 'red' } },
    ['widget "w8": span must be an integer from 1 to 2 (the layout\'s columns) (got 5)', 'widget "w8": data.colour is not a field of a stat widget (fields: value, unit, delta, trend, label)'],
  ],
  [{ id: 'w9', type: 'table', data: { columns: [], rows: [] } }, ['widget "w9": data.columns must be a non-empty array of column names or {key, label?} (got array)']],
  [
    { id: 'w10', type: 'table', data: { columns: ['a', 'b'], rows: [[1], { a: 1, c: 2 }, 'x'] } },
    ['widget "w10": data.rows[0] has 1 cells but there are 2 columns (columns: a, b)', 'widget "w10": data.rows[1].c is not a column (columns: a, b)', 'widget "w10": data.rows[2] must be an array of cells or an object keyed by column (got string)'],
  ],
  [{ id: 'w11', type: 'table', data: { columns: ['a', 'a'], rows: [] } }, ['widget "w11": data.columns has "a" twice; column names must be unique']],
  [{ id: 'w12', type: 'list', data: { items: [3] } }, ['widget "w12": data.items[0] must be a string or {text, detail?} (got number)']],
  [{ id: 'w13', type: 'markdown', data: { text: 5 } }, ['widget "w13": data.text must be a string of markdown (got number)']],
  [{ id: 'w14', type: 'progress', data: { value: 150 } }, ['widget "w14": data.value 150 is outside 0..100 (the range is 0 to data.max)']],
  [{ id: 'w15', type: 'kv', data: { pairs: [{ key: 1, value: {} }] } }, ['widget "w15": data.pairs[0].key must be a string (got number)', 'widget "w15": data.pairs[0].value must be a string, number, boolean or null (got object)']],
  [
    { id: 'sales', type: 'chart', data: { mark: 'bar', data: { values: [{ m: 'jan', v: 1 }] }, encoding: { x: { field: 'month', type: 'nominal' }, y: { field: 'v', type: 'quantitative' } } } },
    ['widget "sales": data.encoding.x.field "month" is not a column of the data (columns: m, v)'],
  ],
  [
    { id: 'w17', type: 'chart', data: { mark: 'line', data: { url: 'http://example.com/y.csv' } } },
    ['widget "w17": data.data.url is not allowed: the page is self-contained: it loads nothing and links nowhere', 'widget "w17": data.data.values is required in the data'],
  ],
  [{ id: 'w18', type: 'chart', data: { mark: 'bar', data: rows, transform: [{ calculate: 'datum.a*2', as: 'b' }] } }, ['widget "w18": data.transform[0].calculate is not allowed: expressions do not run on the server']],
  [{ id: 'w19', type: 'chart', data: { mark: 'pie', data: rows } }, [`widget "w19": data.mark must be one of ${MARKS} (got the text "pie")`]],
  [{ id: 'w20', type: 'chart', data: { mark: 'bar', data: rows, encoding: { x: { field: 'a', type: 'number' } } } }, ['widget "w20": data.encoding.x.type must be one of "quantitative", "ordinal", "nominal", "temporal" (got the text "number")']],
  [{ id: 'w21', type: 'markdown', data: { text: 'x' }, sources: ['t7', 5] }, ['widget "w21": sources[0] "t7" is not a source of this run (sources: t1)', 'widget "w21": sources[1] must be a ref such as "t1", as the tool results of this run are labelled (got 5)']],
  [{ id: 'w22', type: 'markdown', data: { text: 'x' }, status: 'green' }, ['widget "w22": status must be one of ok, warn, error (got "green")']],
  [{ id: 'w23', type: 'markdown', data: { text: 'x' }, colour: 'red' }, ['widget "w23": unknown field "colour" (fields: id, type, title, span, summary, data, sources, status, error)']],
  [{ id: 'w22', type: 'markdown', data: { text: 'y' } }, ['widget "w22": appears twice in this call; send each id once']],
  [{ id: 'w25', type: 'chart', data: { mark: 'bar', data: rows, encoding: { x: { field: 'a', type: 'quantitative' } }, transform: [{ window: 'x' }] } }, ['widget "w25": data.transform[0].window must be a list of at most 20 (each an operation {op, field, as, param}) (got the text "x")']],
  [{ id: 'w26', type: 'kv' }, ['widget "w26": data is required: {pairs: {key: string, value: string|number|boolean|null}[]}']],
  [{ id: 'w27', type: 'chart', data: { mark: 'point', data: rows, encoding: { href: { field: 'a' } } } }, ['widget "w27": data.encoding.href is not allowed: the page is self-contained: it loads nothing and links nowhere']],
  [
    { id: 'w28', type: 'chart', data: { mark: 'bar', data: rows, encoding: { x: { field: 'a', type: 'quantitative', axis: { labelExpr: 'datum.label' } } } } },
    ['widget "w28": data.encoding.x.axis.labelExpr is not allowed: expressions do not run on the server'],
  ],
  [{ id: 'w29', type: 'chart', data: { mark: 'bar', data: rows, encoding: { x: { field: 'a', type: 'quantitative' } }, selection: {} } }, ['widget "w29": data.selection is not allowed: expressions do not run on the server']],
  // Expression strings where vega-lite reads them (issue 39 §2): a condition's test, a logical filter.
  [
    { id: 'w30', type: 'chart', data: { mark: 'bar', data: rows, encoding: { x: { field: 'a', type: 'quantitative' }, color: { condition: { test: 'length(sequence(0,1000000000)) > 0', value: 'red' }, value: 'blue' } } } },
    [`widget "w30": data.encoding.color.condition.test must be ${PREDICATE} (got the text "length(sequence(0,1000000000)) > 0")`],
  ],
  [
    { id: 'w31', type: 'chart', data: { mark: 'bar', data: rows, encoding: { x: { field: 'a', type: 'quantitative' } }, transform: [{ filter: { not: 'length(sequence(0,1e9)) > 0' } }] } },
    [`widget "w31": data.transform[0].filter.not must be ${PREDICATE} (got the text "length(sequence(0,1e9)) > 0")`],
  ],
];

test(`${CASES.length} malformed widgets are each rejected with their exact sentences; the good one is published`, async () => {
  assert.ok(CASES.length >= 20);
  const put = await h.t.api('PUT', '/api/dashboards/checks', { name: 'Checks', layout: 2, slots: [{ id: 'total', title: 'Total', type: 'stat' }, { id: 'count', title: 'Count', type: 'stat' }], prompt: 'check' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const good = { id: 'total', type: 'stat', data: { value: 5, unit: 'items' }, sources: ['t1'] };
  h.model.script(
    { toolCalls: [{ id: 'r1', name: 'read_file', args: { path: 'data.txt' } }] },
    { toolCalls: [{ id: 'p1', name: 'publish_dashboard', args: { widgets: [...CASES.map(([w]) => w), good] } }] },
    { text: 'done' },
  );
  const n = h.model.requests.length;
  const { end } = await h.build('checks');
  assert.equal(end.kind, 'run.completed', JSON.stringify(end));
  const answer = toolResult(h.model.requests[n + 2].body, 'p1').split('\n');
  const expected = ['accepted: total', `rejected ${CASES.length} (fix and publish them again; accepted widgets are kept):`, ...CASES.flatMap(([, lines]) => lines), 'slots still empty: count'];
  assert.deepEqual(answer, expected);
  const doc = (await h.t.api('GET', '/api/dashboards/checks/doc')).body.document;
  assert.deepEqual(doc.widgets.map((w: any) => [w.id, w.sources]), [['total', ['t1']]]);
  const rejected = h.events.events.filter((e) => e.kind === 'dashboard.widget.rejected' && e.dashboard === 'checks');
  assert.equal(rejected.length, CASES.length);
  assert.deepEqual(rejected.find((e) => e.widget === 'sales')!.problems, ['data.encoding.x.field "month" is not a column of the data (columns: m, v)']);
});
