/**
 * The chart grammar (issue 39 §2) fuzzed with Vega-Lite's own JSON schema: at every object the
 * grammar allows (the spec, the encoding, each channel, axis, scale, legend, mark, transform,
 * predicate, config ...), every property name the schema knows that the grammar does not allow
 * there is refused with its JSON path, and every key the grammar does allow, with each kind of
 * value it allows, passes the check and is drawn to SVG by the chart worker. Expression strings in
 * the places vega-lite reads them (condition.test, filter and its not/and/or, DateTime parts,
 * {expr}/{signal} in place of a value, format.parse) are refused by path.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { spec as grammar } from '../../src/capabilities/dashboards/chart-grammar.js';
import type { ObjectRule, Rule } from '../../src/capabilities/dashboards/chart-rules.js';
import { ChartLimitError, drawChart } from '../../src/capabilities/dashboards/chart-draw.js';
import { checkChart } from '../../src/capabilities/dashboards/chart.js';

const schema = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('vega-lite/build/vega-lite-schema.json'), 'utf8'));
/** Every property name anywhere in the Vega-Lite schema. */
const SCHEMA_KEYS = new Set<string>();
(function walk(v: unknown): void {
  if (Array.isArray(v)) return v.forEach(walk);
  if (!v || typeof v !== 'object') return;
  const o = v as Record<string, unknown>;
  if (o.properties && typeof o.properties === 'object') for (const k of Object.keys(o.properties)) SCHEMA_KEYS.add(k);
  Object.values(o).forEach(walk);
})(schema);

const days = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'];
const ROWS = days.map((day, i) => ({ day, amount: [3, 5, 2, 8, 6][i], week: i % 2 ? 'w1' : 'w2', date: `2024-01-0${i + 1}`, x: i }));
const BASE = { mark: 'bar', data: { values: ROWS }, encoding: { x: { field: 'day', type: 'nominal' }, y: { field: 'amount', type: 'quantitative' } } };

type Path = Array<string | number>;
/** One value a rule allows, and where an object rule sits inside it (to fuzz that object in turn). */
interface Example {
  value: unknown;
  inner?: { rule: ObjectRule; at: Path };
}

/** A value for each alternative of a rule (its sample where it has one). */
function examples(rule: Rule): Example[] {
  if (rule.kind === 'either') return rule.of.flatMap(examples);
  if (rule.kind === 'list') return examples(rule.of).map((e) => inList(rule, e));
  return [example(rule)];
}

/** A list of one value (or as many as the list needs), the object inside it found at [0]. */
const inList = (rule: Rule & { kind: 'list' }, e: Example): Example => ({ value: Array.from({ length: Math.max(1, rule.min ?? 0) }, () => e.value), inner: e.inner && { rule: e.inner.rule, at: [0, ...e.inner.at] } });

/** One value a rule allows (an either-rule's first alternative). */
function example(rule: Rule): Example {
  switch (rule.kind) {
    case 'text':
      return { value: rule.sample ?? rule.values?.[0] ?? 'x' };
    case 'number':
      return { value: rule.sample ?? Math.min(rule.max, Math.max(rule.min, 1)) };
    case 'boolean':
      return { value: true };
    case 'null':
      return { value: null };
    case 'rows':
      return { value: ROWS };
    case 'either':
      return example(rule.of[0]);
    case 'list':
      return inList(rule, example(rule.of));
    case 'object': {
      const value: Record<string, unknown> = { ...rule.sample };
      for (const k of rule.required ?? []) if (!(k in value)) value[k] = example(rule.keys[k]).value;
      if (rule.exactlyOne && !rule.exactlyOne.some((k) => k in value)) value[rule.exactlyOne[0]] = example(rule.keys[rule.exactlyOne[0]]).value;
      return { value, inner: { rule, at: [] } };
    }
  }
}

const text = (path: Path) => path.reduce<string>((s, p) => (typeof p === 'number' ? `${s}[${p}]` : `${s}.${p}`), 'data');
function withValue(spec: unknown, path: Path, value: unknown): Record<string, unknown> {
  const copy = structuredClone(spec) as Record<string, unknown>;
  let at: any = copy;
  for (const p of path.slice(0, -1)) at = at[p];
  at[path[path.length - 1]] = value;
  return copy;
}

/** Walks every object rule reachable from the spec, each inside a spec that passes the grammar. */
function fuzz(): { refusedChecks: number; allowed: Array<{ where: string; spec: Record<string, unknown> }>; rejected: string[]; objects: number } {
  const seen = new Set<ObjectRule>();
  const queue: Array<{ spec: Record<string, unknown>; path: Path; rule: ObjectRule }> = [{ spec: BASE, path: [], rule: grammar }];
  const allowed: Array<{ where: string; spec: Record<string, unknown> }> = [];
  const rejected: string[] = [];
  let refusedChecks = 0;
  while (queue.length) {
    const { spec, path, rule } = queue.shift()!;
    if (seen.has(rule)) continue;
    seen.add(rule);
    for (const key of SCHEMA_KEYS) {
      if (key in rule.keys) continue;
      const problems = checkChart(withValue(spec, [...path, key], 'x'));
      refusedChecks++;
      // Named by its own path, or (a key that makes the object two things at once) by the object's, with the key.
      const named = problems.some((p) => p.startsWith(`${text([...path, key])} `) || (p.startsWith(`${text(path)} `) && p.includes(key)));
      assert.ok(named, `${text([...path, key])} should be refused by path; got ${JSON.stringify(problems)}`);
    }
    for (const [key, sub] of Object.entries(rule.keys)) {
      // An object the spec holds already (the base's encoding) is fuzzed in place first: its context draws.
      const held = path.reduce<any>((at, p) => at[p], spec)[key];
      if (sub.kind === 'object' && held && typeof held === 'object') queue.push({ spec, path: [...path, key], rule: sub });
      for (const e of examples(sub)) {
        const variant = withValue(spec, [...path, key], e.value);
        // One of several exclusive keys (a predicate's test, a channel's field or value) replaces the one the object held.
        for (const group of [rule.exactlyOne, rule.atMostOne]) if (group?.includes(key)) for (const other of group) if (other !== key) delete path.reduce<any>((at, p) => at[p], variant)[other];
        const problems = checkChart(variant);
        if (problems.length) {
          rejected.push(`${text([...path, key])} = ${JSON.stringify(e.value)}: ${problems.join('; ')}`);
          continue;
        }
        allowed.push({ where: `${text([...path, key])} = ${JSON.stringify(e.value).slice(0, 80)}`, spec: variant });
        if (e.inner) queue.push({ spec: variant, path: [...path, key, ...e.inner.at], rule: e.inner.rule });
      }
    }
  }
  return { refusedChecks, allowed, rejected, objects: seen.size };
}

test('every Vega-Lite schema key outside the grammar is refused by path; every allowed key and kind of value draws', async () => {
  assert.ok(SCHEMA_KEYS.size > 400, `the schema's keys were read (${SCHEMA_KEYS.size})`);
  const { refusedChecks, allowed, rejected, objects } = fuzz();
  assert.deepEqual(rejected, [], 'every key the grammar allows, with each kind of value, passes the check');
  assert.ok(objects >= 70, `the fuzz reached ${objects} kinds of object`);
  assert.ok(refusedChecks > 20_000, `${refusedChecks} refusals checked`);
  // Every allowed key is a key of Vega-Lite itself (a typo in the grammar would be allowed and ignored).
  const unknown = allowed.map((a) => /\.([A-Za-z$0-9]+) = /.exec(a.where)?.[1]).filter((k) => k && !SCHEMA_KEYS.has(k));
  assert.deepEqual([...new Set(unknown)], []);
  const failed: string[] = [];
  for (const { where, spec } of allowed) {
    // The time budget is wall time: on a machine loaded past its cores a small chart can exceed it
    // once; drawn again, it must draw (a chart the grammar allows that cannot draw fails twice).
    const draw = () => drawChart(spec, 300).catch((err: Error) => (err instanceof ChartLimitError ? drawChart(spec, 300) : Promise.reject(err)));
    try {
      const svg = await draw();
      if (!svg.startsWith('<svg')) failed.push(`${where}: not an SVG`);
    } catch (err) {
      failed.push(`${where}: ${(err as Error).message}`);
    }
  }
  assert.deepEqual(failed, [], `${failed.length} of ${allowed.length} allowed variants did not draw`);
});

test('expression strings wherever vega-lite would read one are refused, each by its path', () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ encoding: { ...BASE.encoding, color: { condition: { test: 'length(sequence(0,1000000000)) > 0', value: 'red' }, value: 'blue' } } }, 'data.encoding.color.condition.test must be'],
    [{ transform: [{ filter: 'datum.amount > 1' }] }, 'data.transform[0].filter must be'],
    [{ transform: [{ filter: { not: 'datum.amount > 1' } }] }, 'data.transform[0].filter.not must be'],
    [{ transform: [{ filter: { and: [{ field: 'amount', gt: 1 }, 'datum.x'] } }] }, 'data.transform[0].filter.and[1] must be'],
    [{ transform: [{ filter: { field: 'date', equal: { year: 'length(sequence(0,1e9))' } } }] }, 'data.transform[0].filter.equal.year must be'],
    [{ transform: [{ calculate: 'datum.amount * 2', as: 'double' }] }, 'data.transform[0].calculate is not allowed: expressions do not run on the server'],
    [{ transform: [{ filter: { param: 'brush' } }] }, 'data.transform[0].filter.param is not allowed: expressions do not run on the server'],
    [{ params: [{ name: 'p', expr: 'sequence(0, 1e9)' }] }, 'data.params is not allowed: expressions do not run on the server'],
    [{ encoding: { ...BASE.encoding, x: { field: 'day', type: 'nominal', axis: { labelExpr: 'datum.label' } } } }, 'data.encoding.x.axis.labelExpr is not allowed'],
    [{ encoding: { ...BASE.encoding, x: { field: 'day', type: 'nominal', scale: { domain: { expr: 'sequence(0, 1e9)' } } } } }, 'data.encoding.x.scale.domain.expr is not allowed'],
    [{ mark: { type: 'bar', color: { signal: 'sequence(0, 1e9)' } } }, 'data.mark.color must be'],
    [{ mark: { type: 'bar', tooltip: { expr: 'sequence(0, 1e9)' } } }, 'data.mark.tooltip.expr is not allowed'],
    [{ data: { values: ROWS, format: { parse: { date: "date:'%Y'),sequence(0,1e9),('" } } } }, 'data.data.format is not part of the chart grammar'],
    [{ encoding: { ...BASE.encoding, text: { field: 'day', type: 'nominal', format: { expr: 'x' } } } }, 'data.encoding.text.format must be'],
    [{ encoding: { ...BASE.encoding, href: { field: 'day' } } }, 'data.encoding.href is not allowed: the page is self-contained'],
    [{ data: { url: 'http://example.com/data.csv' } }, 'data.data.url is not allowed: the page is self-contained'],
    // vega-lite writes a channel's title (else its column name) into the tooltip and description
    // expressions escaping quotes but not a backslash: `a\"+...` would end the string there.
    [{ encoding: { ...BASE.encoding, x: { field: 'day', type: 'nominal', title: 'a\\"+upper(1)+\\"' } } }, 'data.encoding.x.title holds a backslash'],
    [{ encoding: { ...BASE.encoding, color: { field: 'day', type: 'nominal', title: ['ok', 'b\\"'] } } }, 'data.encoding.color.title[1] holds a backslash'],
    [{ data: { values: [{ day: 'Mon', 'x\\"': 1 }] }, encoding: { ...BASE.encoding, y: { field: 'x\\"', type: 'quantitative' } } }, 'data.encoding.y.field holds a backslash'],
    // Names an object has by inheritance are not keys of the grammar.
    [JSON.parse('{"encoding": {"__proto__": {"field": "day"}, "x": {"field": "day", "type": "nominal"}}}'), 'data.encoding.__proto__ is not part of the chart grammar'],
    [{ mark: { type: 'bar', constructor: 'x', toString: 'y' } }, 'data.mark.constructor is not part of the chart grammar'],
  ];
  for (const [change, expected] of cases) {
    const problems = checkChart({ ...BASE, ...change });
    assert.ok(problems.some((p) => p.startsWith(expected)), `${expected}\n  got: ${JSON.stringify(problems)}`);
  }
});
