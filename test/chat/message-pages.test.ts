/**
 * GET /api/chat/<id>?limit=&before= (issue 34): a session's messages a page at a time, newest page
 * first, paging back by message id; the pages put together are exactly the whole list, a turn that
 * failed still marks its message, and bad paging input is a 400 or 404 sentence.
 */
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { Session } from '../../src/capabilities/chat/session.js';
import type { SessionRecord } from '../../src/capabilities/chat/store.js';
import { startTestEngine, tempDir } from '../support/engine.js';

const T0 = Date.UTC(2026, 0, 1);

/** `turns` turns of a question and an answer; the turn numbered `failAt` fails before any reply. */
function records(turns: number, failAt: number): SessionRecord[] {
  const out: SessionRecord[] = [{ type: 'created', ts: T0 }];
  for (let t = 0; t < turns; t++) {
    const runId = `run-${T0 + t}-${t + 1}`;
    out.push({ type: 'turn', ts: T0 + t, runId, status: 'started' });
    out.push({ type: 'message', id: `u${t}`, ts: T0 + t, runId, message: { role: 'user', content: `question ${t}` } });
    if (t === failAt) {
      out.push({ type: 'turn', ts: T0 + t, runId, status: 'failed', error: 'no server at the provider URL' });
      continue;
    }
    out.push({ type: 'message', id: `a${t}`, ts: T0 + t, runId, message: { role: 'assistant', content: [{ type: 'text', text: `answer ${t}` }] } });
    out.push({ type: 'turn', ts: T0 + t, runId, status: 'completed' });
  }
  return out;
}

test('a page is the slice of the whole list it names, kept in step as records apply', () => {
  const s = new Session('pages');
  const recs = records(40, 7);
  for (const r of recs.slice(0, 30)) s.apply(r);
  for (const r of recs.slice(30)) s.apply(r);
  const all = s.messages();
  assert.equal(all.length, 79);
  assert.equal(all.find((m) => m.id === 'u7')?.status, 'failed', 'the failed turn marks its question');
  assert.deepEqual(s.page(10), { messages: all.slice(-10), hasMore: true });
  assert.deepEqual(s.page(10, 'u3'), { messages: all.slice(0, 6), hasMore: false });
  assert.deepEqual(s.page(5, all[20].id), { messages: all.slice(15, 20), hasMore: true });
  assert.equal(s.page(5, 'no-such-message'), undefined);
  s.unload();
  assert.deepEqual(s.messages(), []);
  s.reload(recs);
  assert.deepEqual(s.messages(), all, 'a reload builds the same list');
});

test('GET /api/chat/<id>?limit= pages back through a stored session to its first message', async () => {
  const home = await tempDir();
  await mkdir(path.join(home, 'chat'), { recursive: true });
  await writeFile(path.join(home, 'chat', 'paged.jsonl'), records(60, 12).map((r) => JSON.stringify(r) + '\n').join(''));
  const t = await startTestEngine({ home });
  try {
    const whole = await t.api('GET', '/api/chat/paged');
    assert.equal(whole.status, 200);
    assert.equal(whole.body.hasMore, undefined, 'no limit: every message, as before');
    const ids: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = await t.api('GET', `/api/chat/paged?limit=25${before ? `&before=${before}` : ''}`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      assert.ok(page.body.messages.length <= 25);
      ids.unshift(...page.body.messages.map((m: { id: string }) => m.id));
      if (!page.body.hasMore) break;
      before = page.body.messages[0].id;
    }
    assert.deepEqual(ids, whole.body.messages.map((m: { id: string }) => m.id));
    const full = await t.api('GET', '/api/chat/paged?view=full&limit=2');
    assert.deepEqual(full.body.messages.map((m: { id: string }) => m.id), ['u59', 'a59']);
    assert.equal(full.body.hasMore, true);

    const bad = await t.api('GET', '/api/chat/paged?limit=0');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /limit must be a whole number from 1 to 500/);
    assert.equal((await t.api('GET', '/api/chat/paged?limit=many')).status, 400);
    assert.match((await t.api('GET', '/api/chat/paged?before=u3')).body.error, /before needs a limit/);
    const unknown = await t.api('GET', '/api/chat/paged?limit=5&before=zzz');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error, /has no message "zzz"/);
  } finally {
    await t.close();
  }
});
