/**
 * The splice tier of POST /api/apply on real edits from this repository's own history
 * (apply-corpus.ts: every src/ TypeScript file each commit up to a pinned commit of main modified),
 * as lazy snippets with the least context a model gives: one, two and three unchanged lines around
 * each change, widened only until they are unique in the file; and with the edge markers left out.
 * Aims (issue 44 §1): exact >= 90 % and wrong <= 1 % at one line, exact >= 95 % at three, wrong
 * <= 2 % with edge markers left out. "Wrong" (merged, but not the true new file) is the number that
 * must stay tiny: a refusal falls back to the model tier, a wrong merge corrupts a file.
 * Harsher variants keep one or two lines even where they are not unique (a careless model): their
 * anchors must grow through changed lines to be placed, so they measure how rarely growing places a
 * chunk wrong.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { corpusUnavailable, describe, loadEdits, percent, score, VARIANTS, type Edit } from './apply-corpus.js';

const repo = path.resolve(import.meta.dirname, '../..');
const unavailable = corpusUnavailable(repo);
let edits: Edit[] = [];


test('the corpus: the edits of every src/ TypeScript file up to the pinned commit', { skip: unavailable }, () => {
  edits = loadEdits(repo);
  assert.ok(edits.length >= 900, `only ${edits.length} edits: the pinned history should give 948`);
});

for (const aim of VARIANTS) {
  const wants = [aim.exact !== undefined ? `exact >= ${aim.exact} %` : '', `wrong <= ${aim.wrong} %`].filter(Boolean).join(', ');
  test(`${aim.name}: ${wants}`, { skip: unavailable }, (t) => {
    const c = score(edits, aim.context, aim.edgeMarkers, aim.widen);
    t.diagnostic(`${aim.name}: ${c.total} edits, ${describe(c)}`);
    const pct = (n: number) => (100 * n) / c.total;
    if (aim.exact !== undefined) assert.ok(pct(c.exact) >= aim.exact, `exact ${percent(c.exact, c.total)} is below ${aim.exact} %`);
    assert.ok(pct(c.wrong) <= aim.wrong, `wrong ${percent(c.wrong, c.total)} is above ${aim.wrong} %: ${c.wrongEdits.slice(0, 5).map((w) => `${w.commit.slice(0, 8)} ${w.path}`).join(', ')}`);
  });
}
