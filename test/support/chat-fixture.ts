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
