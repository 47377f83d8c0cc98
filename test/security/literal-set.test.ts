/** The exit mask's literal search (src/kernel/literal-set.ts) finds what one alternation regex finds. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LiteralSet } from '../../src/kernel/literal-set.js';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const regexReplace = (strings: string[], text: string) =>
  text.replace(new RegExp([...strings].sort((a, b) => b.length - a.length).map(escape).join('|'), 'g'), '#');

test('leftmost, then longest at one position, over random texts and string sets, the same as the regex', () => {
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const word = (alphabet: string, min: number, max: number) => Array.from({ length: min + rand(max - min + 1) }, () => alphabet[rand(alphabet.length)]).join('');
  for (let round = 0; round < 400; round++) {
    const alphabet = round % 2 ? 'ab' : 'abcdé\n';
    const strings = Array.from({ length: 1 + rand(6) }, () => word(alphabet, 2, 9));
    // Overlapping and nested strings on purpose: prefixes of each other, repeated letters.
    strings.push(strings[0].slice(0, Math.max(2, strings[0].length - 1)));
    const text = Array.from({ length: 1 + rand(8) }, () => (rand(2) ? strings[rand(strings.length)] : word(alphabet, 0, 12))).join('');
    const set = new LiteralSet(strings);
    assert.equal(set.replace(text, '#'), regexReplace(strings, text), `${JSON.stringify(strings)} in ${JSON.stringify(text)}`);
    assert.equal(set.has(text), new RegExp(strings.map(escape).join('|')).test(text));
  }
  assert.equal(new LiteralSet([]).replace('anything', '#'), 'anything');
  assert.equal(new LiteralSet(['a']).has('a'), false, 'one-character strings are left out');
});
