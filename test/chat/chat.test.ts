/** Chat turns over real HTTP + WebSocket against the scripted model server, in both wire formats. */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { EngineEvent } from '../../src/kernel/bus.js';
import { startChat, WIRE_TYPES, type ChatHarness } from './harness.js';

const kindsOf = (events: EngineEvent[], runId: string) => events.filter((e) => e.runId === runId).map((e) => e.kind);

for (const type of WIRE_TYPES) {
  describe(`chat (${type})`, () => {
    let h: ChatHarness;
    before(async () => {
      h = await startChat(type);
    });
    after(() => h.close());

    it('streams a text-only turn, records it and counts its usage', async () => {
      h.model.script({ text: 'Hello from the model.', usage: { input: 120, output: 9, cached: 20, reasoning: 0 } });
      const seq = h.lastSeq();
      const res = await h.send('s-text', 'hi there');
      assert.equal(res.status, 202);
      assert.deepEqual(res.body, { ok: true });
      const end = await h.turnEnd('s-text', seq);
      assert.equal(end.kind, 'run.completed');
      const runId = end.runId!;
      const kinds = kindsOf(h.events.events, runId);
      assert.equal(kinds[0], 'run.started');
      assert.ok(kinds.indexOf('chat.status') < kinds.indexOf('chat.delta'));
      const deltas = h.events.events.filter((e) => e.runId === runId && e.kind === 'chat.delta').map((e) => e.text).join('');
      assert.equal(deltas, 'Hello from the model.');
      const messages = h.events.events.filter((e) => e.runId === runId && e.kind === 'chat.message').map((e) => e.message as any);
      assert.deepEqual(messages.map((m) => [m.role, m.text]), [['user', 'hi there'], ['assistant', 'Hello from the model.']]);
      const usage = h.events.events.filter((e) => e.runId === runId && e.kind === 'token.usage');
      assert.equal(usage.length, 1);
      assert.equal(usage[0].provider, 'scripted');
      assert.equal(usage[0].model, 'scripted-model');
      assert.deepEqual(end.usage, { input: 120, output: 9, cached: 20, reasoning: 0 });
      await h.events.waitFor((e) => e.kind === 'chat.status' && e.sessionId === 's-text' && e.busy === false);

      const runs = await h.t.api('GET', '/api/runs');
      const rec = runs.body.runs.find((r: any) => r.runId === runId);
      assert.equal(rec.source, 'chat');
      assert.equal(rec.sessionId, 's-text');
      assert.equal(rec.provider, 'scripted');
      assert.equal(rec.model, 'scripted-model');
      assert.equal(rec.title, 'hi there', 'the first turn of a session is titled too');
      assert.deepEqual(rec.usage, { input: 120, output: 9, cached: 20, reasoning: 0 });

      const session = await h.t.api('GET', '/api/chat/s-text');
      assert.equal(session.status, 200);
      assert.equal(session.body.busy, false);
      assert.deepEqual(session.body.messages.map((m: any) => m.text), ['hi there', 'Hello from the model.']);
      const list = await h.t.api('GET', '/api/chat');
      assert.ok(list.body.sessions.some((s: any) => s.id === 's-text' && s.title === 'hi there' && s.busy === false));

      // The key from the secret store reached the provider, the system prompt and the message too.
      const req = h.model.requests.at(-1)!;
      if (type === 'anthropic') assert.equal(req.headers['x-api-key'], 'sk-test-key-123');
      else assert.equal(req.headers.authorization, 'Bearer sk-test-key-123');
      assert.match(JSON.stringify(req.body), /hi there/);
      // The key itself never reaches an event, the session file or the run log.
      assert.doesNotMatch(JSON.stringify(h.events.events), /sk-test-key-123/);
      const files = [path.join(h.t.home, 'chat', 's-text.jsonl'), path.join(h.t.home, 'runs', `${runId}.jsonl`)];
      for (const f of files) assert.doesNotMatch(await readFile(f, 'utf8'), /sk-test-key-123/);
    });

    it('runs parallel read-only calls then the write call, results in call order, usage summed over steps', async () => {
      h.model.script(
        {
          text: 'Let me look.',
          toolCalls: [
            { name: 'test_look', args: { path: 'a' } },
            { name: 'test_look', args: { path: 'b' } },
            { name: 'test_look', args: { path: 'c' } },
            { name: 'test_put', args: { path: 'd' } },
          ],
          usage: { input: 50, output: 10, cached: 0, reasoning: type === 'anthropic' ? 0 : 3 },
        },
        { text: 'Done.', usage: { input: 90, output: 4, cached: 40 } },
      );
      h.trace.length = 0;
      const seq = h.lastSeq();
      await h.send('s-tools', 'look at things');
      const end = await h.turnEnd('s-tools', seq);
      assert.equal(end.kind, 'run.completed');
      const runId = end.runId!;
      // All three reads started before any finished; the write ran alone after them.
      assert.deepEqual(h.trace.slice(0, 3).sort(), ['start:look:a', 'start:look:b', 'start:look:c']);
      assert.deepEqual(h.trace.slice(-2), ['start:put:d', 'end:put:d']);
      const toolEvents = h.events.events.filter((e) => e.runId === runId && (e.kind === 'tool.call' || e.kind === 'tool.result'));
      const putCall = toolEvents.findIndex((e) => e.kind === 'tool.call' && e.tool === 'test_put');
      assert.equal(toolEvents.slice(0, putCall).filter((e) => e.kind === 'tool.result').length, 3);
      // The second model request carried the results in call order.
      const second = h.model.requests.at(-1)!;
      const body = JSON.stringify(second.body);
      const order = ['seen a', 'seen b', 'seen c', 'put d'].map((s) => body.indexOf(s));
      assert.ok(order.every((i, k) => i > 0 && (k === 0 || i > order[k - 1])), `results out of order: ${order}`);
      assert.deepEqual(end.usage, { input: 140, output: 14, cached: 40, reasoning: type === 'anthropic' ? 0 : 3 });
      const session = await h.t.api('GET', '/api/chat/s-tools?view=full');
      assert.equal(session.body.messages.length, 3);
      assert.equal(session.body.messages[1].toolCalls.length, 4);
      assert.ok(session.body.transcript.some((r: any) => r.type === 'message' && r.message.role === 'tool'));
    });

    it('drives the real file tools: two reads together, then a write, with their events in the turn', async () => {
      await writeFile(path.join(h.t.home, 'workspace', 'one.txt'), 'first file\n');
      await writeFile(path.join(h.t.home, 'workspace', 'two.txt'), 'second file\n');
      h.model.script(
        { toolCalls: [{ name: 'read_file', args: { path: 'one.txt' } }, { name: 'read_file', args: { path: 'two.txt' } }, { name: 'write_file', args: { path: 'out.txt', content: 'merged' } }] },
        { text: 'Merged.' },
      );
      const seq = h.lastSeq();
      await h.send('s-files', 'merge the files');
      const end = await h.turnEnd('s-files', seq);
      assert.equal(end.kind, 'run.completed', String(end.error));
      assert.equal(await readFile(path.join(h.t.home, 'workspace', 'out.txt'), 'utf8'), 'merged');
      const kinds = kindsOf(h.events.events, end.runId!);
      assert.equal(kinds.filter((k) => k === 'file.read').length, 2);
      assert.ok(kinds.includes('file.written'));
      const body = JSON.stringify(h.model.requests.at(-1)!.body);
      assert.ok(body.indexOf('first file') < body.indexOf('second file'));
    });

    it('sends images and context with the message', async () => {
      h.model.script({ text: 'A red dot.' });
      const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
      const seq = h.lastSeq();
      const res = await h.send('s-image', 'what is this?', { images: [`data:image/png;base64,${png}`], context: { file: 'notes.md', selection: 'line 3' } });
      assert.equal(res.status, 202);
      const end = await h.turnEnd('s-image', seq);
      assert.equal(end.kind, 'run.completed', String(end.error));
      const body = JSON.stringify(h.model.requests.at(-1)!.body);
      assert.ok(body.includes(png), 'the image reached the provider');
      assert.match(body, /notes\.md/);
      const session = await h.t.api('GET', '/api/chat/s-image');
      assert.equal(session.body.messages[0].text, 'what is this?');
      assert.equal(session.body.messages[0].images, 1);
      const bad = await h.send('s-image', 'x', { images: ['not an image!'] });
      assert.equal(bad.status, 400);
    });

    it('stops during streaming and keeps the partial reply', async () => {
      h.model.script({ text: 'Partial words here', hang: true });
      const seq = h.lastSeq();
      await h.send('s-stop-stream', 'talk');
      await h.events.waitFor((e) => e.kind === 'chat.delta' && e.sessionId === 's-stop-stream' && e.seq > seq && String(e.text).includes('here'));
      const stop = await h.t.api('POST', '/api/chat/stop', { sessionId: 's-stop-stream' });
      assert.equal(stop.status, 202);
      const end = await h.turnEnd('s-stop-stream', seq);
      assert.equal(end.kind, 'run.stopped');
      const msg = await h.events.waitFor((e) => e.kind === 'chat.message' && e.runId === end.runId && (e.message as any).role === 'assistant');
      assert.equal((msg.message as any).text, 'Partial words here');
      assert.equal((msg.message as any).status, 'stopped');
      const session = await h.t.api('GET', '/api/chat/s-stop-stream');
      assert.equal(session.body.busy, false);
      assert.equal(session.body.messages.at(-1).text, 'Partial words here');
      assert.equal(session.body.messages.at(-1).status, 'stopped');
    });

    it('stops during a tool call', async () => {
      h.model.script({ toolCalls: [{ name: 'test_wait', args: { path: 'x' } }] });
      const seq = h.lastSeq();
      await h.send('s-stop-tool', 'wait');
      await h.events.waitFor((e) => e.kind === 'tool.call' && e.tool === 'test_wait' && e.seq > seq);
      await h.t.api('POST', '/api/chat/stop', { sessionId: 's-stop-tool' });
      const end = await h.turnEnd('s-stop-tool', seq);
      assert.equal(end.kind, 'run.stopped');
      const result = h.events.events.find((e) => e.runId === end.runId && e.kind === 'tool.result');
      assert.ok(result);
      // The next turn in the same session is valid: the call has its result in the history.
      h.model.script({ text: 'after stop' });
      const seq2 = h.lastSeq();
      await h.send('s-stop-tool', 'again');
      const end2 = await h.turnEnd('s-stop-tool', seq2);
      assert.equal(end2.kind, 'run.completed');
    });

    it('queues messages while busy; a queued message can be edited or canceled and runs after the turn', async () => {
      // The first turn waits on a permission prompt, so the session stays busy until the test answers it.
      h.model.script({ toolCalls: [{ name: 'test_danger', args: { command: 'hold' } }] }, { text: 'first reply' });
      const seq = h.lastSeq();
      await h.send('s-queue', 'first', { permissionMode: 'ask' });
      const asked = await h.events.waitFor((e) => e.kind === 'permission.requested' && e.sessionId === 's-queue' && e.seq > seq);
      const q1 = await h.send('s-queue', 'second (original)');
      const q2 = await h.send('s-queue', 'third');
      assert.equal(q1.status, 202);
      assert.equal(q1.body.queued, true);
      await h.events.waitFor((e) => e.kind === 'chat.queued' && e.id === q2.body.id);
      const full = await h.t.api('GET', '/api/chat/s-queue?view=full');
      assert.deepEqual(full.body.queued.map((q: any) => q.message), ['second (original)', 'third']);
      assert.equal(full.body.busy, true);

      const edit = await h.t.api('PUT', '/api/chat/queue', { sessionId: 's-queue', id: q1.body.id, message: 'second (edited)' });
      assert.equal(edit.status, 200);
      await h.events.waitFor((e) => e.kind === 'chat.queue.updated' && e.id === q1.body.id && e.message === 'second (edited)');
      const cancel = await h.t.api('DELETE', `/api/chat/queue?session=s-queue&id=${q2.body.id}`);
      assert.equal(cancel.status, 200);
      await h.events.waitFor((e) => e.kind === 'chat.queue.removed' && e.id === q2.body.id);
      const missing = await h.t.api('DELETE', `/api/chat/queue?session=s-queue&id=${q2.body.id}`);
      assert.equal(missing.status, 404);

      h.model.script({ text: 'second reply' });
      const before = h.model.requests.length;
      await h.t.api('POST', '/api/permissions/resolve', { runId: asked.runId, callId: asked.callId, decision: 'allow', scope: 'once' });
      const reply = await h.events.waitFor((e) => e.kind === 'chat.message' && e.sessionId === 's-queue' && (e.message as any).text === 'second reply');
      await h.events.waitFor((e) => e.kind === 'chat.status' && e.sessionId === 's-queue' && e.busy === false && e.seq > reply.seq);
      assert.equal(h.model.requests.length, before + 2);
      const body = JSON.stringify(h.model.requests.at(-1)!.body);
      assert.match(body, /second \(edited\)/);
      assert.doesNotMatch(body, /third/);
      const session = await h.t.api('GET', '/api/chat/s-queue');
      assert.deepEqual(session.body.messages.map((m: any) => m.text), ['first', '', 'first reply', 'second (edited)', 'second reply']);
    });

    it('stop hands the queued messages back instead of running them', async () => {
      h.model.script({ text: 'busy', hang: true });
      const seq = h.lastSeq();
      await h.send('s-stopq', 'first');
      await h.events.waitFor((e) => e.kind === 'chat.delta' && e.sessionId === 's-stopq' && e.seq > seq);
      const q = await h.send('s-stopq', 'queued behind');
      assert.equal(q.body.queued, true);
      const before = h.model.requests.length;
      const stop = await h.t.api('POST', '/api/chat/stop', { sessionId: 's-stopq' });
      assert.equal(stop.status, 202);
      assert.deepEqual(stop.body.unqueued, [{ id: q.body.id, message: 'queued behind' }]);
      const removed = await h.events.waitFor((e) => e.kind === 'chat.queue.removed' && e.id === q.body.id);
      assert.equal(removed.reason, 'stopped');
      assert.equal(removed.message, 'queued behind');
      assert.equal((await h.turnEnd('s-stopq', seq)).kind, 'run.stopped');
      await h.events.waitFor((e) => e.kind === 'chat.status' && e.sessionId === 's-stopq' && e.busy === false);
      const full = await h.t.api('GET', '/api/chat/s-stopq?view=full');
      assert.deepEqual(full.body.queued, []);
      assert.equal(full.body.busy, false);
      assert.equal(h.model.requests.length, before, 'no turn started for the queued message');
      assert.ok(!h.events.events.some((e) => e.kind === 'run.started' && e.sessionId === 's-stopq' && e.seq > removed.seq));
    });

    it('retries a 429 and then succeeds, with model.retry in the turn', async () => {
      h.model.script({ error: 429, headers: { 'retry-after-ms': '10' }, body: { error: { message: 'rate limited' } } }, { text: 'after the retry' });
      const seq = h.lastSeq();
      await h.send('s-retry', 'hello');
      const end = await h.turnEnd('s-retry', seq);
      assert.equal(end.kind, 'run.completed');
      const retry = h.events.events.find((e) => e.kind === 'model.retry' && e.runId === end.runId);
      assert.ok(retry, 'model.retry is run-scoped');
      assert.equal(retry.status, 429);
      const log = await h.t.api('GET', `/api/runs/${end.runId}/events`);
      assert.ok(log.body.events.some((e: any) => e.kind === 'model.retry'));
    });

    it('fails a turn with the provider sentence on a 4xx retrying cannot fix', async () => {
      const body = type === 'anthropic' ? { type: 'error', error: { type: 'invalid_request_error', message: 'context too long for this model' } } : { error: { message: 'context too long for this model' } };
      h.model.script({ error: 400, body });
      const seq = h.lastSeq();
      await h.send('s-fail', 'hello');
      const end = await h.turnEnd('s-fail', seq);
      assert.equal(end.kind, 'run.failed');
      assert.match(String(end.error), /answered 400: context too long for this model/);
      const status = await h.events.waitFor((e) => e.kind === 'chat.status' && e.sessionId === 's-fail' && e.busy === false);
      assert.equal(status.outcome, 'failed');
    });

    it('lists the workspace skills in the system prompt of a chat without an agent', async () => {
      const put = await h.t.api('PUT', `/api/skills/notes-${type}`, { description: 'Write release notes', body: 'List the changes.' });
      assert.ok(put.status < 300, JSON.stringify(put.body));
      h.model.script({ text: 'noted' });
      const seq = h.lastSeq();
      await h.send('s-skills', 'write the notes');
      assert.equal((await h.turnEnd('s-skills', seq)).kind, 'run.completed');
      const body = h.model.requests.at(-1)!.body;
      const system = JSON.stringify(type === 'anthropic' ? body.system : body.messages[0]);
      assert.match(system, /You are the assistant inside Workbench/);
      assert.match(system, new RegExp(`# Skills[\\s\\S]*notes-${type}: Write release notes`));
    });

    it('a provider error after part of the reply streamed fails the turn and keeps what streamed', async () => {
      h.model.script({ text: 'half an answer', streamError: { message: 'the output was blocked', type: 'invalid_request_error' } });
      const seq = h.lastSeq();
      await h.send('s-midfail', 'go');
      const end = await h.turnEnd('s-midfail', seq);
      assert.equal(end.kind, 'run.failed');
      assert.match(String(end.error), /failed mid-answer \(invalid_request_error\): the output was blocked/);
      const session = await h.t.api('GET', '/api/chat/s-midfail');
      const last = session.body.messages.at(-1);
      assert.deepEqual([last.role, last.text, last.status], ['assistant', 'half an answer', 'failed']);
    });

    it('validates requests and answers with sentences', async () => {
      assert.equal((await h.t.api('POST', '/api/chat', { message: 'x' })).status, 400);
      assert.equal((await h.t.api('POST', '/api/chat', { sessionId: 'ok', message: '' })).status, 400);
      assert.equal((await h.t.api('POST', '/api/chat', { sessionId: 'bad/id', message: 'x' })).status, 400);
      const unknownProvider = await h.t.api('POST', '/api/chat', { sessionId: 'v', message: 'x', provider: 'nope' });
      assert.equal(unknownProvider.status, 400);
      assert.match(unknownProvider.body.error, /unknown provider "nope"/);
      const unknownAgent = await h.t.api('POST', '/api/chat', { sessionId: 'v', message: 'x', agent: 'ghost' });
      assert.equal(unknownAgent.status, 404);
      assert.match(unknownAgent.body.error, /unknown agent "ghost"/);
      assert.equal((await h.t.api('GET', '/api/chat/never-was')).status, 404);
      const idle = await h.t.api('POST', '/api/chat/stop', { sessionId: 's-text' });
      assert.equal(idle.status, 409);
      assert.equal((await h.t.api('PUT', '/api/chat/mode', { sessionId: 's-text', permissionMode: 'sometimes' })).status, 400);
    });

    it('renames a session and keeps its permission mode', async () => {
      const rename = await h.t.api('PUT', '/api/chat/s-text', { title: 'Greetings' });
      assert.equal(rename.status, 200);
      await h.events.waitFor((e) => e.kind === 'chat.renamed' && e.sessionId === 's-text' && e.title === 'Greetings');
      const mode = await h.t.api('PUT', '/api/chat/mode', { sessionId: 's-text', permissionMode: 'allow' });
      assert.equal(mode.status, 200);
      const full = await h.t.api('GET', '/api/chat/s-text?view=full');
      assert.equal(full.body.title, 'Greetings');
      assert.equal(full.body.permissionMode, 'allow');
      assert.equal(full.body.provider, 'scripted');
    });
  });
}
