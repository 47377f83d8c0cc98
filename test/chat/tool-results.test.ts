/**
 * Issue 40: a chat session shows each tool call with its result (whether it failed, what it answered)
 * and a file write's diff, live (tool.result) and from the stored transcript after the engine restarts;
 * the diff is for people only and never reaches the model.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '../support/engine.js';
import { startChat, type ChatHarness } from './harness.js';

describe('tool calls in the chat transcript', () => {
  let home: string;
  let h: ChatHarness;
  before(async () => {
    home = await tempDir();
    h = await startChat('openai-compatible', { home });
  });
  after(() => h?.close());

  const callsOf = (messages: any[]) => messages.flatMap((m) => m.toolCalls ?? []);

  it('each call carries whether it failed, its result and a file write’s diff, stored with the session', async () => {
    await writeFile(path.join(home, 'workspace', 'app.ts'), 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
    h.model.script(
      {
        toolCalls: [
          { id: 'c-edit', name: 'edit_file', args: { path: 'app.ts', old_string: 'const b = 2;', new_string: 'const b = 20;' } },
          { id: 'c-new', name: 'write_file', args: { path: 'notes/new.md', content: '# New\nfirst line\n' } },
          { id: 'c-over', name: 'write_file', args: { path: 'app.ts', content: 'const a = 1;\nconst b = 20;\nconst c = 30;\n' } },
          { id: 'c-bad', name: 'edit_file', args: { path: 'app.ts', old_string: 'not in the file', new_string: 'x' } },
          { id: 'c-shell', name: 'run_shell', args: { command: 'printf "%05000d" 0; echo; echo LAST-LINE; exit 3' } },
        ],
      },
      { text: 'Done.' },
    );
    const seq = h.lastSeq();
    assert.equal((await h.send('s-tools', 'change the app', { permissionMode: 'allow' })).status, 202);
    const end = await h.turnEnd('s-tools', seq);
    assert.equal(end.kind, 'run.completed', String(end.error));
    assert.equal(await readFile(path.join(home, 'workspace', 'app.ts'), 'utf8'), 'const a = 1;\nconst b = 20;\nconst c = 30;\n');

    // Live: the diff rides on tool.result.
    const live = h.events.events.find((e) => e.runId === end.runId && e.kind === 'tool.result' && e.callId === 'c-edit');
    assert.match(String(live?.diff), /^--- a\/app\.ts\n\+\+\+ b\/app\.ts\n@@ -1,3 \+1,3 @@\n const a = 1;\n-const b = 2;\n\+const b = 20;\n const c = 3;\n$/);

    const check = (calls: any[]) => {
      const by = Object.fromEntries(calls.map((c) => [c.callId, c]));
      assert.equal(by['c-edit'].ok, true);
      assert.equal(by['c-edit'].result, 'edited app.ts');
      assert.match(by['c-edit'].diff, /-const b = 2;\n\+const b = 20;/);
      assert.match(by['c-new'].diff, /^--- \/dev\/null\n\+\+\+ b\/notes\/new\.md\n@@ -0,0 \+1,2 @@\n\+# New\n\+first line\n$/);
      assert.match(by['c-over'].diff, /@@ -1,3 \+1,3 @@\n const a = 1;\n const b = 20;\n-const c = 3;\n\+const c = 30;\n$/, 'an overwrite is diffed against what it replaced');
      assert.equal(by['c-bad'].ok, false, 'a failed call is marked failed');
      assert.match(by['c-bad'].result, /occurs 0 times in app\.ts/);
      assert.equal(by['c-bad'].diff, undefined);
      assert.equal(by['c-shell'].ok, true, 'a command that exits non-zero still ran: the exit code is in its result');
      assert.match(by['c-shell'].result, /^exit 3\n/);
      assert.match(by['c-shell'].result, /LAST-LINE\n?$/);
    };
    const view = await h.t.api('GET', '/api/chat/s-tools');
    check(callsOf(view.body.messages));
    // The model got the tools' answers, never a diff.
    const sent = JSON.stringify(h.model.requests.at(-1)!.body);
    assert.match(sent, /edited app\.ts/);
    assert.doesNotMatch(sent, /\+\+\+ b\/app\.ts|@@ -1,3/);

    // After a restart the same view comes from the session file.
    await h.close();
    h = await startChat('openai-compatible', { home });
    check(callsOf((await h.t.api('GET', '/api/chat/s-tools')).body.messages));
  });

  it('a long result is cut in the view, keeping its start and its end', async () => {
    h.model.script({ toolCalls: [{ id: 'c-long', name: 'run_shell', args: { command: 'echo FIRST-LINE; seq 1 4000; echo FINAL-LINE' } }] }, { text: 'ok' });
    const seq = h.lastSeq();
    await h.send('s-long', 'print a lot', { permissionMode: 'allow' });
    await h.turnEnd('s-long', seq);
    const [call] = callsOf((await h.t.api('GET', '/api/chat/s-long')).body.messages);
    assert.ok(call.result.length < 6_200, `cut to the view limit (${call.result.length})`);
    assert.match(call.result, /FIRST-LINE/);
    assert.match(call.result, /characters not shown/);
    assert.match(call.result, /FINAL-LINE/);
  });
});
