/** Writes a chat session file straight into an engine home: long sessions without running turns. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** `turns` user/assistant pairs (2 x turns messages); every 7th answer is several lines long. */
export async function writeChatSession(home: string, id: string, turns: number, title = `Session ${id}`): Promise<void> {
  const lines: unknown[] = [{ type: 'created', ts: 1_700_000_000_000, title }];
  for (let t = 0; t < turns; t++) {
    const ts = 1_700_000_000_000 + t * 1000;
    const runId = `run-${ts}-${t}`;
    const answer = t % 7 === 0 ? Array.from({ length: 6 }, (_, i) => `Line ${i + 1} of answer ${t}: the details, step by step.`).join('\n') : `Answer ${t}: done.`;
    lines.push({ type: 'turn', ts, runId, status: 'started', provider: 'p', model: 'm' });
    lines.push({ type: 'message', id: `${id}-u${t}`, ts, runId, message: { role: 'user', content: `Question ${t}` }, text: `Question ${t}` });
    lines.push({ type: 'message', id: `${id}-a${t}`, ts: ts + 1, runId, message: { role: 'assistant', content: [{ type: 'text', text: answer }] } });
    lines.push({ type: 'turn', ts: ts + 2, runId, status: 'completed' });
  }
  const dir = path.join(home, 'chat');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, `${id}.jsonl`), lines.map((l) => JSON.stringify(l) + '\n').join(''));
}

/**
 * A session of `messages` shown messages of which `cards` are tool calls, as real turns store them:
 * a tool turn is the question, an answer calling run_shell (with 20 lines of output) and edit_file
 * (with its diff), the tool message answering both, and the final answer (3 messages, 2 cards).
 */
export async function writeToolSession(home: string, id: string, messages = 1000, cards = 200): Promise<void> {
  const lines: unknown[] = [{ type: 'created', ts: 1_700_000_000_000, title: `Tools ${id}` }];
  const toolTurns = cards / 2;
  const plainTurns = (messages - toolTurns * 3) / 2;
  const every = (toolTurns + plainTurns) / toolTurns;
  let next = 0;
  for (let t = 0, made = 0; t < toolTurns + plainTurns; t++) {
    const ts = 1_700_000_000_000 + t * 1000;
    const runId = `run-${ts}-${t}`;
    lines.push({ type: 'turn', ts, runId, status: 'started', provider: 'p', model: 'm' });
    lines.push({ type: 'message', id: `${id}-u${t}`, ts, runId, message: { role: 'user', content: `Question ${t}` }, text: `Question ${t}` });
    if (made < toolTurns && t >= next) {
      made++;
      next += every;
      const [shell, edit] = [`${id}-c${t}a`, `${id}-c${t}b`];
      const output = ['exit 0', ...Array.from({ length: 20 }, (_, i) => `PASS src/module-${i}.test.ts (${i * 3} ms)`)].join('\n');
      const diff = `--- a/src/app-${t}.ts\n+++ b/src/app-${t}.ts\n@@ -1,3 +1,3 @@\n import { run } from './run';\n-const retries = 1;\n+const retries = 3;\n export default run;\n`;
      lines.push({
        type: 'message',
        id: `${id}-a${t}`,
        ts: ts + 1,
        runId,
        message: {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me run the **tests** and fix the retries.' },
            { type: 'tool-call', toolCallId: shell, toolName: 'run_shell', input: { command: 'npm test -- --reporter=dot' } },
            { type: 'tool-call', toolCallId: edit, toolName: 'edit_file', input: { path: `src/app-${t}.ts`, old_string: 'const retries = 1;', new_string: 'const retries = 3;' } },
          ],
        },
      });
      lines.push({
        type: 'message',
        id: `${id}-t${t}`,
        ts: ts + 2,
        runId,
        message: {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: shell, toolName: 'run_shell', output: { type: 'text', value: output } },
            { type: 'tool-result', toolCallId: edit, toolName: 'edit_file', output: { type: 'text', value: `edited src/app-${t}.ts` } },
          ],
        },
        diffs: { [edit]: diff },
      });
      lines.push({ type: 'message', id: `${id}-f${t}`, ts: ts + 3, runId, message: { role: 'assistant', content: [{ type: 'text', text: `All **20** tests pass; \`retries\` is now 3 in \`src/app-${t}.ts\`.` }] } });
    } else {
      lines.push({ type: 'message', id: `${id}-a${t}`, ts: ts + 1, runId, message: { role: 'assistant', content: [{ type: 'text', text: `Answer ${t}: see \`notes.md\`, **done**.` }] } });
    }
    lines.push({ type: 'turn', ts: ts + 4, runId, status: 'completed' });
  }
  const dir = path.join(home, 'chat');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, `${id}.jsonl`), lines.map((l) => JSON.stringify(l) + '\n').join(''));
}
