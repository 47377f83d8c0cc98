/** The exit mask itself (src/kernel/redact.ts): exact values, JSON spellings, streams cut anywhere. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redactor } from '../../src/kernel/redact.js';

const V = 'abc-SECRET-123';
const QUOTED = 'pa"ss\\word\n42';

test('text, values and JSON: every occurrence, keys included, JSON stays JSON', () => {
  const r = new Redactor();
  r.setValues([V, QUOTED, 'ab']);
  assert.equal(r.text(`x ${V} y ${V}`), 'x *** y ***');
  assert.equal(r.text('ab stays: too short to mask'), 'ab stays: too short to mask');
  const obj = { a: [`${V}!`, 1, null, { [V]: QUOTED }], b: 'plain' };
  assert.deepEqual(r.value(obj), { a: ['***!', 1, null, { '***': '***' }], b: 'plain' });
  const unchanged = { a: 'nothing here' };
  assert.equal(r.value(unchanged), unchanged, 'an untouched value is not copied');
  const json = JSON.stringify({ error: `failed with ${QUOTED} and ${V}` });
  assert.ok(r.has(json), 'the JSON-escaped spelling is recognised');
  const masked = r.json(json);
  assert.deepEqual(JSON.parse(masked), { error: 'failed with *** and ***' });
  assert.equal(r.json('{"ok":true}'), '{"ok":true}');
});

test('a value added while others are known is masked at once; setValues replaces the set', () => {
  const r = new Redactor();
  r.setValues([V]);
  r.add('fresh-value-99');
  assert.equal(r.text(`${V} fresh-value-99`), '*** ***');
  r.setValues(['other-value']);
  assert.equal(r.text(V), V);
});

test('a stream cut at every position never lets a value through, and loses nothing else', () => {
  const r = new Redactor();
  r.setValues([V, 'abc-OTHER']);
  const text = `start abc- ${V}${V} abc-SECRET-12 end abc-OTH ${V}`;
  const expected = r.text(text);
  for (let size = 1; size <= text.length; size++) {
    const s = r.stream();
    const out: string[] = [];
    for (let i = 0; i < text.length; i += size) out.push(s.push(text.slice(i, i + size)));
    out.push(s.flush());
    assert.equal(out.join(''), expected, `chunks of ${size}`);
    for (let i = 0; i < out.length; i++) assert.ok(!out.slice(0, i + 1).join('').includes(V), `chunks of ${size}`);
  }
  const plain = new Redactor().stream();
  assert.equal(plain.push('no values: passes at once'), 'no values: passes at once');
});

test('every common encoding of a stored value is masked, inside longer encoded text too', () => {
  const value = 'p@ss w0rd/with+odd&chars!';
  const r = new Redactor();
  r.setValues([value]);
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const copies = [
    b64(value),
    b64(value).replace(/\+/g, '-').replace(/\//g, '_'),
    b64(`a${value}`),
    b64(`ab${value}\n`),
    b64(`user=admin\npassword=${value}\nhost=db\n`),
    Buffer.from(value).toString('hex'),
    Buffer.from(value).toString('hex').toUpperCase(),
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%20/g, '+'),
    [...value].reverse().join(''),
  ];
  for (const copy of copies) {
    const out = r.text(`before ${copy} after`);
    assert.match(out, /\*\*\*/, copy);
    assert.ok(out.length < copy.length, `${copy} -> ${out}`);
  }
  // Unrelated base64 (an image) and short values are left alone.
  const image = b64('\x89PNG unrelated bytes '.repeat(50));
  assert.equal(r.text(image), image);
  r.setValues(['abcd']);
  assert.equal(r.text(b64('xxabcdyy')), b64('xxabcdyy'));
});
