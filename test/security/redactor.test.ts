/** The exit mask itself (src/kernel/redact.ts): exact values, JSON spellings, streams cut anywhere. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
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

/** What a real tool prints for `input` (xxd, hexdump, od, base32, tr ...). */
const tool = (cmd: string, args: string[], input: string) => execFileSync(cmd, args, { input, encoding: 'utf8' });

test('issue 38 §3: base32, upper and lower case, rot13, spaced letters and reversed copies of a stored value are masked', () => {
  const value = 'Hunter2-Stored-Pw';
  const r = new Redactor();
  r.setValues([value]);
  const copies: Array<[string, string]> = [
    ['base32', tool('base32', ['-w0'], value)],
    ['base32 inside a longer text', tool('base32', ['-w0'], `user=ada\npassword=${value}\n`)],
    ['base32 at another alignment', tool('base32', ['-w0'], `xy${value}z`)],
    ['upper case', tool('tr', ['a-z', 'A-Z'], value)],
    ['lower case', tool('tr', ['A-Z', 'a-z'], value)],
    ['rot13', tool('tr', ['a-zA-Z', 'n-za-mN-ZA-M'], value)],
    ['spaced letters', tool('sed', ['s/./& /g;s/ $//'], value)],
    ['reversed', tool('rev', [], value)],
  ];
  for (const [what, copy] of copies) {
    const out = r.text(`before ${copy.trim()} after`);
    assert.match(out, /\*\*\*/, `${what}: ${copy}`);
    assert.ok(out.length < copy.length + 13, `${what}: ${copy} -> ${out}`);
  }
  // The common words of a text are not garbled by a short value's case or spaced forms.
  const short = new Redactor();
  short.setValues(['word']);
  assert.equal(short.text('WORD w o r d jbeq'), 'WORD w o r d jbeq');
});

/** A stored value straddling two dump lines, in each dump format: nothing of it (hex or characters) stays. */
test('issue 38 §3: hex dumps of a stored value split over two lines are masked in both pieces, in events too', () => {
  const value = 'S3cr3t-Dump-Value-42';
  const r = new Redactor();
  r.setValues([value]);
  // 10 bytes before it: in 16-byte lines the value ends line 1 with 6 characters and starts line 2 with 14.
  const file = `0123456789${value}-and-the-rest-of-the-file\n`;
  const pieces = [value.slice(0, 6), value.slice(6)];
  const dumps: Array<[string, string, boolean]> = [
    ['xxd', tool('xxd', [], file), true],
    ['xxd -g1', tool('xxd', ['-g1'], file), true],
    ['xxd -u -c 12', tool('xxd', ['-u', '-c', '12'], file), true],
    ['xxd -p', tool('xxd', ['-p', '-c', '16'], file), false],
    ['hexdump -C', tool('hexdump', ['-C'], file), true],
    ['hexdump', tool('hexdump', [], file), false],
    ['od -A x -t x1z', tool('od', ['-A', 'x', '-t', 'x1z'], file), true],
    ['od -x', tool('od', ['-x'], file), false],
  ];
  for (const [what, dump, hasColumn] of dumps) {
    assert.ok(!r.text(dump.replace(/\s/g, '')).includes(value), `${what}: the test's dump holds the value only in pieces`);
    const masked = r.text(dump);
    const stars = masked.split('').filter((c) => c === '*').length;
    assert.equal(stars, value.length * (hasColumn ? 3 : 2), `${what}: every hex digit${hasColumn ? ' and column character' : ''} of the value, nothing else\n${dump}\n${masked}`);
    for (const piece of pieces) assert.ok(!masked.includes(piece), `${what}: ${piece}\n${masked}`);
    assert.equal(masked.length, dump.length, `${what}: the dump keeps its shape`);
    if (what.startsWith('xxd')) {
      // Read back with the tool itself: the value's bytes are gone, everything around them is intact.
      const args = what === 'xxd -p' ? ['-r', '-p'] : ['-r'];
      const back = execFileSync('xxd', args, { input: masked.replace(/\*/g, '0') }).toString('latin1');
      assert.equal(back, file.replace(value, '\0'.repeat(value.length)), what);
    }
    // Checked as event JSON, where the lines are joined by \n escapes.
    const json = JSON.stringify({ kind: 'tool.result', text: dump });
    assert.ok(r.has(json), `${what}: found in JSON text`);
    assert.equal(JSON.parse(r.json(json)).text, masked, what);
  }
  // A dump of other bytes, and text that only looks hex, are left alone.
  const other = tool('xxd', [], 'nothing secret here, only some bytes to dump and more\n');
  assert.equal(r.text(other), other);
  assert.equal(r.text('deadbeef cafe 0123456789abcdef\nabcdef: 12 34'), 'deadbeef cafe 0123456789abcdef\nabcdef: 12 34');
});
