/**
 * The charts a dashboard may hold: a closed subset of Vega-Lite, by allowlist (docs/dashboards.md,
 * docs/security.md "Content the engine evaluates"). Every key and every kind of value a widget may
 * use is named here; anything else is refused with its JSON path. Vega-Lite turns many strings into
 * vega expressions (`filter: "..."`, `condition.test`, `calculate`, `labelExpr`, `{expr}` or
 * `{signal}` in place of nearly any value, a DateTime part, a `format.parse` specifier ...), and vega
 * evaluates those when it draws: here no value is an expression. Text is only ever a name, a
 * colour, a title or a d3 format, which vega-lite quotes (a column name or channel title it quotes
 * only in part, so those hold no backslash: chart-rules.ts, inExpression); numbers are bounded
 * where a large one would make vega draw without end (bins, steps, tick counts, sizes). What the
 * grammar lets through is still drawn in a worker with a time and memory budget (chart-draw.ts).
 */
import { bool, either, eitherNoted, field, int, list, none, num, obj, oneOf, rows, text, type EitherRule, type Rule } from './chart-rules.js';
import { LIMITS } from './widget-data.js';

export const MARKS = ['bar', 'line', 'area', 'point', 'circle', 'square', 'tick', 'rule', 'rect', 'arc', 'text', 'trail', 'boxplot', 'errorbar', 'errorband'];
const TYPES = ['quantitative', 'ordinal', 'nominal', 'temporal'];
const AGGREGATE_OPS = ['count', 'valid', 'values', 'missing', 'distinct', 'sum', 'product', 'mean', 'average', 'variance', 'variancep', 'stdev', 'stdevp', 'stderr', 'median', 'q1', 'q3', 'ci0', 'ci1', 'min', 'max'];
const WINDOW_OPS = ['row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead', 'first_value', 'last_value', 'nth_value'];
const TIME_UNITS = ['year', 'quarter', 'month', 'week', 'day', 'dayofyear', 'date', 'hours', 'minutes', 'seconds', 'milliseconds', 'yearquarter', 'yearquartermonth', 'yearmonth', 'yearmonthdate', 'yearmonthdatehours', 'yearmonthdatehoursminutes', 'yearmonthdatehoursminutesseconds', 'yearweek', 'yearweekday', 'yearweekdayhours', 'yearweekdayhoursminutes', 'yearweekdayhoursminutesseconds', 'yeardayofyear', 'quartermonth', 'monthdate', 'monthdatehours', 'monthdatehoursminutes', 'monthdatehoursminutesseconds', 'weekday', 'weekdayhours', 'weekdayhoursminutes', 'weekdayhoursminutesseconds', 'dayhours', 'dayhoursminutes', 'dayhoursminutesseconds', 'hoursminutes', 'hoursminutesseconds', 'minutesseconds', 'secondsmilliseconds'];
const CHANNELS_SORTED_BY = ['x', 'y', 'color', 'fill', 'stroke', 'strokeWidth', 'size', 'shape', 'fillOpacity', 'strokeOpacity', 'opacity', 'text', 'theta', 'radius'];

// ---- values ---------------------------------------------------------------------------------

const BIG = 1e15;
const anyNumber = num(-BIG, BIG);
const colour = text({ sample: '#3b6fd8' });
const size = num(0, 2000, 4);
const fraction = num(0, 1, 0.8);
const angle = num(-360, 360, 0);
const fontWeight = either(oneOf('normal', 'bold', 'lighter', 'bolder'), int(100, 900, 600));
const dash = list(num(0, 1000, 4), 16);
const titleText = either(text({ sample: 'A title' }), list(text(), 10), none);
/** A channel's title is also the key of its tooltip line (chart-rules.ts, inExpression). */
const channelTitle = either(text({ sample: 'A title', inExpression: true }), list(text({ inExpression: true }), 10), none);
/** A date as parts: numbers only (vega-lite writes each part into an expression as it is). */
const dateTime = obj('a date {year, month, date ...}', {
  year: int(-9999, 9999, 2024),
  quarter: int(1, 4),
  month: int(1, 12),
  date: int(1, 31),
  day: int(1, 7),
  hours: int(0, 24, 0),
  minutes: int(0, 60, 0),
  seconds: int(0, 60, 0),
  milliseconds: int(0, 1000, 0),
  utc: bool,
}, { sample: { year: 2024 } });
/** A constant in place of a field (a rule at y = 0). */
const datum = either(text(), anyNumber, bool);
const timeUnit = either(oneOf(...TIME_UNITS, ...TIME_UNITS.filter((u) => u !== 'secondsmilliseconds').map((u) => `utc${u}`)), obj('time unit parameters', { unit: oneOf(...TIME_UNITS), utc: bool }, { required: ['unit'] }));
const formatType = oneOf('number', 'time', 'utc');
const format = text({ sample: ',.0f' });

// ---- predicates (filter, condition.test): fields compared with values, never an expression ------

const PREDICATE_TESTS = ['equal', 'lt', 'lte', 'gt', 'gte', 'range', 'oneOf', 'valid'];
const comparable = either(text(), anyNumber, dateTime);
const fieldPredicate = obj(
  'a field predicate',
  {
    field,
    timeUnit,
    equal: either(text(), anyNumber, bool, dateTime),
    lt: comparable,
    lte: comparable,
    gt: comparable,
    gte: comparable,
    range: list(either(anyNumber, dateTime, none), 2, 2),
    oneOf: list(either(text(), anyNumber, bool, dateTime), 1000),
    valid: bool,
  },
  { required: ['field'], exactlyOne: PREDICATE_TESTS, tag: ['field'], sample: { field: 'amount', gte: 0 } },
);
/** A predicate: {field, equal|lt|lte|gt|gte|range|oneOf|valid}, or and/or/not of predicates (so it refers to itself). */
const predicate: EitherRule = eitherNoted('a predicate is an object; an expression string does not run on the server');
(predicate.of as Rule[]).push(
  fieldPredicate,
  obj('all of', { and: list(predicate, 20) }, { required: ['and'], tag: ['and'] }),
  obj('any of', { or: list(predicate, 20) }, { required: ['or'], tag: ['or'] }),
  obj('the negation', { not: predicate }, { required: ['not'], tag: ['not'] }),
);

// ---- scales, axes, legends ----------------------------------------------------------------------

const scaleKeys = {
  type: oneOf('linear', 'log', 'pow', 'sqrt', 'symlog', 'time', 'utc', 'ordinal', 'band', 'point', 'quantile', 'quantize', 'threshold', 'bin-ordinal'),
  domain: either(list(either(text(), anyNumber, bool, none), 1000), oneOf('unaggregated')),
  domainMin: either(anyNumber, dateTime),
  domainMax: either(anyNumber, dateTime),
  domainMid: anyNumber,
  range: either(list(either(text({ sample: '#3b6fd8' }), anyNumber), 1000), oneOf('category', 'ordinal', 'ramp', 'heatmap', 'diverging', 'symbol')),
  rangeMin: anyNumber,
  rangeMax: anyNumber,
  scheme: either(text({ sample: 'tableau10' }), obj('a colour scheme', { name: text({ sample: 'blues' }), extent: list(num(0, 1, 0), 2), count: int(1, 50, 5) }, { required: ['name'] })),
  zero: bool,
  nice: either(bool, int(1, 100, 5)),
  padding: num(0, 1000, 0.1),
  paddingInner: fraction,
  paddingOuter: num(0, 10, 0.2),
  reverse: bool,
  round: bool,
  clamp: bool,
  exponent: num(-10, 10, 2),
  base: num(2, 100, 10),
  constant: num(0.000001, BIG, 1),
  interpolate: either(
    oneOf('rgb', 'lab', 'hcl', 'hsl', 'hsl-long', 'hcl-long', 'cubehelix', 'cubehelix-long'),
    obj('an interpolation', { type: oneOf('rgb', 'cubehelix', 'cubehelix-long'), gamma: num(0, 10, 1) }, { required: ['type'] }),
  ),
  align: fraction,
};
/** A scale of a position channel: its range is the chart's own width or height. */
const { range: _colours, ...positionScaleKeys } = scaleKeys;
const positionScale = obj('a scale', positionScaleKeys);
/** A scale of a colour, size or shape channel: its range is those values, or a named range. */
const scale = obj('a scale', scaleKeys);

const axis = obj('an axis', {
  title: titleText,
  format,
  formatType,
  orient: oneOf('top', 'bottom', 'left', 'right'),
  grid: bool,
  labels: bool,
  ticks: bool,
  domain: bool,
  tickCount: int(0, 100, 5),
  tickMinStep: num(0, BIG, 1),
  values: list(either(text(), anyNumber, bool, dateTime), 200),
  labelAngle: angle,
  labelAlign: oneOf('left', 'center', 'right'),
  labelBaseline: oneOf('top', 'middle', 'bottom', 'alphabetic', 'line-top', 'line-bottom'),
  labelOverlap: either(bool, oneOf('parity', 'greedy')),
  labelLimit: size,
  labelPadding: size,
  labelFlush: either(bool, size),
  labelSeparation: size,
  labelFont: text({ sample: 'sans-serif' }),
  labelFontSize: size,
  labelFontWeight: fontWeight,
  labelColor: colour,
  labelOpacity: fraction,
  titleAngle: angle,
  titleAlign: oneOf('left', 'center', 'right'),
  titleAnchor: oneOf('start', 'middle', 'end'),
  titleFont: text({ sample: 'sans-serif' }),
  titleFontSize: size,
  titleFontWeight: fontWeight,
  titleColor: colour,
  titleLimit: size,
  titlePadding: size,
  domainColor: colour,
  domainWidth: size,
  gridColor: colour,
  gridDash: dash,
  gridOpacity: fraction,
  gridWidth: size,
  tickColor: colour,
  tickSize: size,
  tickWidth: size,
  tickRound: bool,
  offset: size,
  minExtent: size,
  maxExtent: size,
  zindex: int(0, 10),
});

const legend = obj('a legend', {
  title: titleText,
  format,
  formatType,
  orient: oneOf('left', 'right', 'top', 'bottom', 'top-left', 'top-right', 'bottom-left', 'bottom-right', 'none'),
  direction: oneOf('horizontal', 'vertical'),
  type: oneOf('symbol', 'gradient'),
  columns: int(0, 20, 2),
  values: list(either(text(), anyNumber, bool, dateTime), 200),
  tickCount: int(0, 100, 5),
  symbolType: text({ sample: 'circle' }),
  symbolSize: size,
  symbolLimit: int(0, 200, 20),
  symbolFillColor: colour,
  symbolStrokeColor: colour,
  labelLimit: size,
  labelFont: text({ sample: 'sans-serif' }),
  labelFontSize: size,
  labelColor: colour,
  labelOverlap: either(bool, oneOf('parity', 'greedy')),
  titleFont: text({ sample: 'sans-serif' }),
  titleFontSize: size,
  titleColor: colour,
  titleOrient: oneOf('top', 'bottom', 'left', 'right'),
  titlePadding: size,
  gradientLength: size,
  gradientThickness: size,
  fillColor: colour,
  strokeColor: colour,
  padding: size,
  offset: size,
  zindex: int(0, 10),
});

// ---- encodings ----------------------------------------------------------------------------------

const bin = either(
  bool,
  oneOf('binned'),
  obj('bin parameters', { maxbins: int(2, 200, 10), nice: bool, extent: list(anyNumber, 2), anchor: anyNumber, binned: bool }, { sample: { maxbins: 10 } }),
);
const aggregate = either(oneOf(...AGGREGATE_OPS), obj('argmin or argmax', { argmin: field, argmax: field }, { exactlyOne: ['argmin', 'argmax'], tag: ['argmin', 'argmax'] }));
const order = oneOf('ascending', 'descending');
const sort = either(
  none,
  oneOf('ascending', 'descending', ...CHANNELS_SORTED_BY, ...CHANNELS_SORTED_BY.map((c) => `-${c}`)),
  list(either(text({ sample: 'Mon' }), anyNumber, bool, dateTime), 1000),
  obj('a sort by field', { field, op: oneOf(...AGGREGATE_OPS), order }, { tag: ['field', 'op'], sample: { op: 'sum', field: 'amount' } }),
  obj('a sort by channel', { encoding: oneOf(...CHANNELS_SORTED_BY), order }, { required: ['encoding'], tag: ['encoding'], sample: { encoding: 'y' } }),
);
const stack = either(bool, none, oneOf('zero', 'center', 'normalize'));
/** A channel shows a field, a constant value or a datum: one of them. */
const VALUE_KEYS = ['field', 'value', 'datum'];
const fieldKeys = { field, type: oneOf(...TYPES), aggregate, bin, timeUnit, title: channelTitle, bandPosition: fraction };
const conditionKeys = { test: predicate, value: either(text({ sample: '#c62828' }), anyNumber, bool, none), field, type: oneOf(...TYPES), aggregate, timeUnit, title: channelTitle };
const oneCondition = obj('a condition', conditionKeys, { required: ['test'], sample: { value: '#c62828' } });
const condition = either(oneCondition, list(oneCondition, 10));
const markValue = either(text({ sample: '#3b6fd8' }), anyNumber, bool, none, dash);

const position = obj('a position channel', { ...fieldKeys, axis: either(axis, none), scale: either(positionScale, none), sort, stack, value: anyNumber, datum }, { atMostOne: VALUE_KEYS, sample: { type: 'quantitative' } });
const offset = obj('an offset channel', { ...fieldKeys, scale: positionScale, sort, value: anyNumber, datum }, { atMostOne: VALUE_KEYS, sample: { type: 'nominal', field: 'week' } });
const polar = obj('a polar channel', { ...fieldKeys, scale: either(positionScale, none), sort, stack, value: anyNumber, datum }, { atMostOne: VALUE_KEYS, sample: { type: 'quantitative' } });
const secondary = obj('a second position', { field, aggregate, bin: none, timeUnit, title: channelTitle, bandPosition: fraction, value: anyNumber, datum }, { atMostOne: VALUE_KEYS });
const markProperty = obj('a mark property channel', { ...fieldKeys, scale: either(scale, none), legend: either(legend, none), sort, condition, value: markValue, datum }, { atMostOne: VALUE_KEYS, sample: { type: 'nominal', field: 'week' } });
const textChannel = obj('a text channel', { ...fieldKeys, format, formatType, condition, value: either(text(), anyNumber, bool, none, list(text(), 10)), datum }, { atMostOne: VALUE_KEYS, sample: { type: 'nominal', field: 'week' } });
const detail = obj('a detail channel', fieldKeys, { sample: { type: 'nominal', field: 'week' } });
const orderChannel = obj('an order channel', { ...fieldKeys, sort: order, value: anyNumber }, { atMostOne: VALUE_KEYS, sample: { type: 'quantitative' } });

const encoding = obj('an encoding', {
  x: position,
  y: position,
  x2: secondary,
  y2: secondary,
  xOffset: offset,
  yOffset: offset,
  xError: secondary,
  yError: secondary,
  xError2: secondary,
  yError2: secondary,
  theta: polar,
  theta2: secondary,
  radius: polar,
  radius2: secondary,
  color: markProperty,
  fill: markProperty,
  stroke: markProperty,
  opacity: markProperty,
  fillOpacity: markProperty,
  strokeOpacity: markProperty,
  strokeWidth: markProperty,
  strokeDash: markProperty,
  size: markProperty,
  angle: markProperty,
  shape: markProperty,
  text: textChannel,
  tooltip: either(textChannel, list(textChannel, 50), none),
  detail: either(detail, list(detail, 20)),
  order: either(orderChannel, list(orderChannel, 10)),
});

// ---- marks --------------------------------------------------------------------------------------

const markStyle = {
  color: colour,
  fill: colour,
  stroke: colour,
  opacity: fraction,
  fillOpacity: fraction,
  strokeOpacity: fraction,
  strokeWidth: size,
  strokeDash: dash,
  strokeCap: oneOf('butt', 'round', 'square'),
  strokeJoin: oneOf('miter', 'round', 'bevel'),
  filled: bool,
  size: num(0, 100_000, 30),
  shape: text({ sample: 'circle' }),
};
const markKeys = {
  ...markStyle,
  point: either(bool, oneOf('transparent'), obj('the points of a line', markStyle)),
  line: either(bool, obj('the line of an area', markStyle)),
  interpolate: oneOf('linear', 'linear-closed', 'step', 'step-before', 'step-after', 'basis', 'cardinal', 'monotone', 'natural', 'bundle', 'catmull-rom'),
  tension: fraction,
  orient: oneOf('horizontal', 'vertical'),
  align: oneOf('left', 'center', 'right'),
  baseline: oneOf('top', 'middle', 'bottom', 'alphabetic', 'line-top', 'line-bottom'),
  dx: num(-2000, 2000, 2),
  dy: num(-2000, 2000, 2),
  angle,
  font: text({ sample: 'sans-serif' }),
  fontSize: size,
  fontStyle: oneOf('normal', 'italic'),
  fontWeight,
  text: either(text(), list(text(), 10)),
  limit: size,
  ellipsis: text({ sample: '…' }),
  innerRadius: size,
  outerRadius: size,
  padAngle: num(0, 6.3, 0.02),
  cornerRadius: size,
  cornerRadiusEnd: size,
  binSpacing: size,
  thickness: size,
  width: either(size, obj('a band width', { band: num(0, 1, 0.8) }, { required: ['band'] })),
  height: either(size, obj('a band height', { band: num(0, 1, 0.8) }, { required: ['band'] })),
  clip: bool,
  tooltip: either(bool, none, obj('tooltip content', { content: oneOf('encoding', 'data') }, { required: ['content'] })),
  // boxplot, errorbar and errorband
  extent: either(oneOf('min-max', 'stderr', 'stdev', 'ci', 'iqr'), num(0, 100, 1.5)),
  median: either(bool, obj('the median', markStyle)),
  box: either(bool, obj('the box', markStyle)),
  outliers: either(bool, obj('the outliers', markStyle)),
  rule: either(bool, obj('the whiskers', markStyle)),
  ticks: either(bool, obj('the ticks', markStyle)),
  band: either(bool, obj('the band', markStyle)),
  borders: either(bool, obj('the borders', markStyle)),
};
const mark = either(oneOf(...MARKS), obj('a mark', { type: oneOf(...MARKS), ...markKeys }, { required: ['type'] }));

// ---- transforms: each computes from fields, none takes an expression ---------------------------

const groupby = list(field, 20);
const as = either(text({ sample: 'out' }), list(text(), 2));
const sortFields = list(obj('a sort field', { field, order }, { required: ['field'] }), 10);
const opOf = (ops: string[]) => obj('an operation', { op: oneOf(...ops), field, as: text({ sample: 'out' }), param: int(0, 1000) }, { required: ['op', 'as'] });
const TRANSFORM_NAMES = ['aggregate', 'bin', 'timeUnit', 'fold', 'window', 'joinaggregate', 'stack', 'density', 'regression', 'loess', 'quantile', 'pivot', 'flatten', 'filter'];
const transform = eitherNoted(
  `a transform is an object named by its operation (${TRANSFORM_NAMES.join(', ')}); calculate and other expressions do not run on the server`,
  obj('an aggregate transform', { aggregate: list(opOf(AGGREGATE_OPS), 50), groupby }, { required: ['aggregate'], tag: ['aggregate'] }),
  obj('a bin transform', { bin, field, as }, { required: ['bin', 'field', 'as'], tag: ['bin'] }),
  obj('a timeUnit transform', { timeUnit, field, as: text({ sample: 'out' }) }, { required: ['timeUnit', 'field', 'as'], tag: ['timeUnit'] }),
  obj('a fold transform', { fold: list(field, 50), as: list(text(), 2) }, { required: ['fold'], tag: ['fold'] }),
  obj('a window transform', { window: list(opOf([...WINDOW_OPS, ...AGGREGATE_OPS]), 20), frame: list(either(int(-100_000, 100_000), none), 2), ignorePeers: bool, groupby, sort: sortFields }, { required: ['window'], tag: ['window'] }),
  obj('a joinaggregate transform', { joinaggregate: list(opOf(AGGREGATE_OPS), 20), groupby }, { required: ['joinaggregate'], tag: ['joinaggregate'] }),
  obj('a stack transform', { stack: field, groupby, offset: oneOf('zero', 'center', 'normalize'), sort: sortFields, as }, { required: ['stack', 'groupby', 'as'], tag: ['stack'] }),
  obj('a density transform', { density: field, groupby, cumulative: bool, counts: bool, bandwidth: num(0, BIG, 0), extent: list(anyNumber, 2), minsteps: int(2, 1000, 25), maxsteps: int(2, 1000, 200), steps: int(2, 1000, 100), as: list(text(), 2) }, { required: ['density'], tag: ['density'] }),
  obj('a regression transform', { regression: field, on: field, groupby, method: oneOf('linear', 'log', 'exp', 'pow', 'quad', 'poly'), order: int(1, 10, 3), extent: list(anyNumber, 2), params: bool, as: list(text(), 2) }, { required: ['regression', 'on'], tag: ['regression'] }),
  obj('a loess transform', { loess: field, on: field, groupby, bandwidth: num(0, 1, 0.3), as: list(text(), 2) }, { required: ['loess', 'on'], tag: ['loess'] }),
  obj('a quantile transform', { quantile: field, groupby, probs: list(num(0, 1, 0.5), 100), step: num(0.001, 1, 0.01), as: list(text(), 2) }, { required: ['quantile'], tag: ['quantile'] }),
  obj('a pivot transform', { pivot: field, value: field, groupby, limit: int(0, 1000), op: oneOf(...AGGREGATE_OPS) }, { required: ['pivot', 'value'], tag: ['pivot'] }),
  obj('a flatten transform', { flatten: list(field, 20), as: list(text(), 20) }, { required: ['flatten'], tag: ['flatten'] }),
  obj('a filter transform', { filter: predicate }, { required: ['filter'], tag: ['filter'] }),
);
const transforms = list(transform, 20);

// ---- the spec -----------------------------------------------------------------------------------

const titleStyle = {
  subtitle: either(text(), list(text(), 10)),
  anchor: oneOf('start', 'middle', 'end'),
  orient: oneOf('top', 'bottom', 'left', 'right'),
  align: oneOf('left', 'center', 'right'),
  fontSize: size,
  fontWeight,
  font: text({ sample: 'sans-serif' }),
  color: colour,
  subtitleColor: colour,
  subtitleFontSize: size,
  offset: size,
  dx: num(-2000, 2000, 2),
  dy: num(-2000, 2000, 2),
  limit: size,
  frame: oneOf('bounds', 'group'),
};
const titleParams = obj('a title', { text: either(text({ sample: 'A title' }), list(text(), 10)), ...titleStyle }, { required: ['text'] });
const extentSize = either(num(0, 2000, 300), obj('a step', { step: num(1, 200, 20) }, { required: ['step'] }));
const view = obj('the view', { fill: colour, stroke: either(colour, none), strokeWidth: size, strokeDash: dash, opacity: fraction, fillOpacity: fraction, strokeOpacity: fraction, cornerRadius: size, continuousWidth: size, continuousHeight: size, discreteWidth: size, discreteHeight: size, step: num(1, 200, 20) });
const sharedOrNot = oneOf('shared', 'independent');
const resolveChannels = obj('a resolution', Object.fromEntries(['x', 'y', 'color', 'fill', 'stroke', 'opacity', 'size', 'shape', 'theta', 'radius'].map((c) => [c, sharedOrNot])));
const markConfig = obj('a mark style', markKeys);
const config = obj('a configuration', {
  view,
  axis,
  axisX: axis,
  axisY: axis,
  legend,
  title: obj('the title style', titleStyle),
  mark: markConfig,
  bar: markConfig,
  line: markConfig,
  area: markConfig,
  point: markConfig,
  arc: markConfig,
  text: markConfig,
  rule: markConfig,
  rect: markConfig,
  tick: markConfig,
  range: obj('the colour ranges', { category: list(colour, 100), ordinal: list(colour, 100), ramp: list(colour, 100), heatmap: list(colour, 100), diverging: list(colour, 100) }),
  background: colour,
  font: text({ sample: 'sans-serif' }),
  padding: size,
});

/** The rows inline, as many as a table widget may hold; what a row holds is data that vega reads, never code. */
const data = obj('the data', { values: rows(LIMITS.rows) }, { required: ['values'] });

const layer = obj('a layer', { mark, encoding, transform: transforms, title: either(titleText, titleParams), description: text(), width: extentSize, height: extentSize }, { required: ['mark'] });

export const spec = obj('a Vega-Lite spec', {
  $schema: text({ sample: 'https://vega.github.io/schema/vega-lite/v5.json' }),
  title: either(titleText, titleParams),
  description: text(),
  width: extentSize,
  height: extentSize,
  mark,
  encoding,
  data,
  transform: transforms,
  layer: list(layer, 10),
  config,
  autosize: either(oneOf('pad', 'fit', 'fit-x', 'fit-y', 'none'), obj('autosize parameters', { type: oneOf('pad', 'fit', 'fit-x', 'fit-y', 'none'), contains: oneOf('content', 'padding'), resize: bool })),
  padding: either(size, obj('padding', { top: size, bottom: size, left: size, right: size })),
  background: colour,
  view,
  resolve: obj('a resolution', { scale: resolveChannels, axis: resolveChannels, legend: resolveChannels }),
});
