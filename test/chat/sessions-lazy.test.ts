/**
 * Sessions load lazily: start-up reads summaries from chat/index.json (replaying only what a file
 * gained since), transcripts load on first use and idle ones are unloaded past chatSessionsLoaded.
 */
import assert from 'node:assert/strict';
import { appendFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, it } from 'node:test';
import { LIMITS } from '../../src/kernel/limits.js';
import { startTestEngine, tempDir } from '../support/engine.js';

const homes: string[] = [];
after(async () => {
  for (const h of homes) await rm(h, { recursive: true, force: true });
});

/** A session file of `turns` completed turns, written as the engine writes them. */
function sessionLines(id: string, turns: number): string {
  const lines: unknown[] = [{ type: 'created', ts: 1000 }];
  for (let t = 0; t < turns; t++) {
    const runId = `run-${1000 + t}-1`;
    lines.push({ type: 'turn', ts: 1001 + t, runId, status: 'started', provider: 'p', model: 'm' });
    lines.push({ type: 'message', id: `${id}-u${t}`, ts: 1001 + t, runId, message: { role: 'user', content: `${id} question ${t}` }, text: `${id} question ${t}` });
    lines.push({ type: 'message', id: `${id}-a${t}`, ts: 1001 + t, runId, message: { role: 'assistant', content: [{ type: 'text', text: `${id} answer ${t}` }] } });
    lines.push({ type: 'turn', ts: 1001 + t, runId, status: 'completed' });
  }
  return lines.map((l) => JSON.stringify(l) + '\n').join('');
}

it('keeps session summaries in chat/index.json and replays only what a file gained since', async () => {
  const home = await tempDir();
  homes.push(home);
  const chatDir = path.join(home, 'chat');
  await mkdir(chatDir, { recursive: true });
  await writeFile(path.join(chatDir, 'alpha.jsonl'), sessionLines('alpha', 2));

  let t = await startTestEngine({ home });
  assert.deepEqual((await t.api('GET', '/api/chat')).body.sessions.map((s: any) => [s.id, s.title, s.messageCount]), [['alpha', 'alpha question 0', 4]]);
  await t.close();
  const index = JSON.parse(await readFile(path.join(chatDir, 'index.json'), 'utf8'));
  assert.equal(index.sessions.alpha.size, (await stat(path.join(chatDir, 'alpha.jsonl'))).size);
  assert.equal(index.sessions.alpha.messageCount, 4);

  // The file grows behind the index (a crash before the index was rewritten): only the tail is replayed.
  await appendFile(path.join(chatDir, 'alpha.jsonl'), JSON.stringify({ type: 'title', ts: 5000, title: 'Renamed later' }) + '\n' + sessionLines('alpha', 1).split('\n').slice(1).join('\n'));
  t = await startTestEngine({ home });
  const [alpha] = (await t.api('GET', '/api/chat')).body.sessions;
  assert.equal(alpha.title, 'Renamed later');
  assert.equal(alpha.messageCount, 6);
  assert.equal((await t.api('GET', '/api/chat/alpha')).body.messages.length, 6);
  await t.close();

  // A broken index is only a cache: the sessions are read from their files.
  await writeFile(path.join(chatDir, 'index.json'), '{not json');
  t = await startTestEngine({ home });
  assert.equal((await t.api('GET', '/api/chat')).body.sessions[0].messageCount, 6);
  await t.close();
});

it('loads transcripts on first use and unloads idle ones past the limit, answering the same', async () => {
  const home = await tempDir();
  homes.push(home);
  const chatDir = path.join(home, 'chat');
  await mkdir(chatDir, { recursive: true });
  const count = LIMITS.chatSessionsLoaded + 4;
  for (let i = 0; i < count; i++) await writeFile(path.join(chatDir, `s${i}.jsonl`), sessionLines(`s${i}`, 1));
  const t = await startTestEngine({ home });
  try {
    const loaded = () => [...Array(count).keys()].filter((i) => t.engine.chat.isLoaded(`s${i}`)).length;
    assert.equal(loaded(), 0, 'start-up loads no transcript');
    for (let i = 0; i < count; i++) {
      const res = await t.api('GET', `/api/chat/s${i}`);
      assert.deepEqual(res.body.messages.map((m: any) => m.text), [`s${i} question 0`, `s${i} answer 0`]);
    }
    assert.equal(loaded(), LIMITS.chatSessionsLoaded);
    // The first one was unloaded; it loads again, whole.
    const again = await t.api('GET', '/api/chat/s0?view=full');
    assert.equal(again.body.transcript.length, 4);
    assert.equal((await t.api('GET', '/api/chat')).body.sessions.length, count);
  } finally {
    await t.close();
  }
});
