/**
 * The editor helpers (issue 31), each beside its baseline in one run:
 *   1. the splice tier of POST /api/apply on files of 200, 1 000 and 2 000 lines (a two-chunk edit
 *      in the middle with three lines of context, and the same with one): p50 and p99 per merge,
 *      against the cheapest exact merge there is, a string replace of the known old text (what an
 *      `old_string`/`new_string` edit tool does). Aim: under 2 ms p99 at 2 000 lines.
 *   2. POST /api/complete's own time: the same FIM request sent through the engine and straight to
 *      the model server (the scripted server on loopback answering at once), one keep-alive client,
 *      the two interleaved one by one; the engine's added time is the difference of the medians.
 *      Aim: under 5 ms p50.
 *   npm run bench -- editor
 */
import http from 'node:http';
import { splice } from '../src/capabilities/editor/splice.js';
import { startTestEngine } from '../test/support/engine.js';
import { startModelServer } from '../test/support/model-server.js';
import { fmt, median, pct, result, table } from './lib/report.js';

const MERGES = 2_000;
const COMPLETIONS = 400;

function sourceFile(lines: number): string {
  const out: string[] = [];
  for (let i = 0; out.length < lines; i++) out.push(`export function f${i}(x: number): number {`, `  const y = x * ${i};`, `  return y + ${i};`, '}', '');
  return out.slice(0, lines).join('\n') + '\n';
}

function editOf(file: string, context: number): { snippet: string; oldText: string; newText: string; expected: string } {
  const lines = file.split('\n');
  const mid = Math.floor(lines.length / 2 / 5) * 5; // the start of a function
  const a = mid + 1; // `const y = ...` of that function
  const b = mid + 21; // four functions further down
  const changed = [...lines];
  changed[a] = changed[a].replace('x *', 'x **');
  changed[b] = changed[b].replace('x *', 'x /');
  const snippet = ['// ... existing code ...', ...changed.slice(a - context, a + 1 + context), '// ... existing code ...', ...changed.slice(b - context, b + 1 + context), '// ... existing code ...'].join('\n');
  return { snippet, oldText: lines.slice(a - context, b + 1 + context).join('\n'), newText: changed.slice(a - context, b + 1 + context).join('\n'), expected: changed.join('\n') };
}

const rows: Array<Record<string, string>> = [];
let p99At2000 = 0;
let baselineP99At2000 = 0;
for (const context of [3, 1])
  for (const size of [200, 1_000, 2_000]) {
    const file = sourceFile(size);
    const edit = editOf(file, context);
    if (splice(file, edit.snippet).merged !== edit.expected) throw new Error(`the splice did not merge the ${size}-line edit with ${context} lines of context exactly`);
    const engine: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < MERGES; i++) {
      let t0 = performance.now();
      splice(file, edit.snippet);
      engine.push(performance.now() - t0);
      t0 = performance.now();
      file.replace(edit.oldText, edit.newText);
      baseline.push(performance.now() - t0);
    }
    rows.push({ context: String(context), lines: String(size), 'splice p50 ms': fmt(median(engine), 3), 'splice p99 ms': fmt(pct(engine, 0.99), 3), 'replace p50 ms': fmt(median(baseline), 3), 'replace p99 ms': fmt(pct(baseline, 0.99), 3) });
    if (size === 2_000 && pct(engine, 0.99) > p99At2000) {
      p99At2000 = pct(engine, 0.99);
      baselineP99At2000 = pct(baseline, 0.99);
    }
  }
table(rows);
result('apply splice p99, 2 000-line file (the slower of 3 and 1 lines of context)', 'ms', p99At2000, baselineP99At2000, { under: 2 });

const model = await startModelServer();
const t = await startTestEngine();
await t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'p', baseUrl: model.baseUrl, model: 'qwen2.5-coder-1.5b', newKey: 'sk-bench' }], defaultProvider: 'p' });
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  new Promise<number>((resolve, reject) => {
    const data = JSON.stringify(body);
    const t0 = performance.now();
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - t0));
    });
    req.on('error', reject);
    req.end(data);
  });
const prefix = sourceFile(120);
const suffix = sourceFile(40);
const input = { path: 'src/bench.ts', prefix, suffix };
const direct = { model: 'qwen2.5-coder-1.5b', prompt: `<|fim_prefix|>${prefix}<|fim_suffix|>${suffix}<|fim_middle|>`, max_tokens: 256, temperature: 0.2, stream: false };
const viaEngine: number[] = [];
const straight: number[] = [];
for (let i = 0; i < COMPLETIONS + 50; i++) {
  model.script({ text: 'x + 1;' }, { text: 'x + 1;' });
  const e = await post(`${t.url}/api/complete`, input);
  const d = await post(`${model.baseUrl}/completions`, direct, { authorization: 'Bearer sk-bench' });
  if (i >= 50) {
    viaEngine.push(e);
    straight.push(d);
  }
}
table([{ side: 'engine', 'p50 ms': fmt(median(viaEngine), 2), 'p99 ms': fmt(pct(viaEngine, 0.99), 2) }, { side: 'direct', 'p50 ms': fmt(median(straight), 2), 'p99 ms': fmt(pct(straight, 0.99), 2) }]);
const added = median(viaEngine) - median(straight);
console.log(`engine's added time on /api/complete: ${fmt(added, 2)} ms p50`);
result('complete: the engine added time p50', 'ms', added, median(straight), { under: 5 });
agent.destroy();
await t.close();
await model.close();
