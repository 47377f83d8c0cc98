/**
 * The tool-prompt budget (issue 33), on the engine's real built-in tools:
 *   1. tokens of the tool block a request carries at 2 048 / 4 096 / 8 192 / 32 768-token windows
 *      (the budget: a quarter of the window), against every tool in full as sent before the budget;
 *      counted with the cl100k BPE the engine uses. Aim at 4 096: under 1 024 (before: ~5 400).
 *   2. one tool_search over 200 tools (the built-ins plus generated MCP-style tools), as a call runs
 *      it (the BM25 index of an unchanged tool set is kept; its first build is shown apart), against a
 *      plain substring scan of the same text. Aim: under 5 ms.
 *   node --import tsx bench/tool-budget.bench.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEngine } from '../src/engine.js';
import { bpeCounter } from '../src/providers/tokens.js';
import { ToolBudget, wireJson } from '../src/tools/budget.js';
import { indexFor, ToolIndex } from '../src/tools/search.js';
import type { AnyTool } from '../src/tools/types.js';
import { median, result, table } from './lib/report.js';

const home = await mkdtemp(path.join(os.tmpdir(), 'bench-tool-budget-'));
const engine = await startEngine({ home, port: 0, log: () => undefined });
try {
  const registry = engine.tools;
  const all = registry.visible();
  const full = (await bpeCounter(all.map(wireJson))).reduce((a, b) => a + b, 0) + all.length + 1;
  const rows: Array<Record<string, string | number>> = [];
  let at4k = 0;
  for (const window of [2048, 4096, 8192, 32768]) {
    const plan = await new ToolBudget({ registry, budget: window / 4, count: bpeCounter }).plan();
    if (window === 4096) at4k = plan.tokens;
    rows.push({ window, budget: window / 4, mode: plan.mode, 'tools sent': plan.tools.length, 'tool tokens': plan.tokens, 'every tool in full': full });
  }
  table(rows);
  result('tool_tokens_at_4096_window', 'tokens', at4k, full, { under: 1024 });

  // 200 tools: the built-ins and MCP-style tools of invented servers with varied words.
  const topics = ['invoice', 'calendar', 'ticket', 'deploy', 'metric', 'customer', 'repository', 'image', 'email', 'payment', 'shipment', 'sensor'];
  const verbs = ['list', 'get', 'create', 'update', 'delete', 'search', 'export', 'archive'];
  const tools: AnyTool[] = [...registry.all()];
  for (let i = 0; tools.length < 200; i++) {
    const topic = topics[i % topics.length];
    const verb = verbs[Math.floor(i / topics.length) % verbs.length];
    tools.push({
      name: `srv${i % 5}_${verb}_${topic}_${i}`,
      group: `srv${i % 5}`,
      source: `srv${i % 5}`,
      description: `${verb[0].toUpperCase()}${verb.slice(1)} ${topic} records of the account. Returns one line per ${topic} with its id, owner and last change; pages with cursor.`,
      parameters: { type: 'object', properties: { id: { type: 'string' }, owner: { type: 'string' }, cursor: { type: 'string' } } },
      permission: 'unknown',
      run: async () => '',
    });
  }
  const queries = ['work item', 'read a file', 'create invoice', 'database query', 'search the web', 'export shipment owner', 'run a shell command', 'calendar'];
  const t0 = performance.now();
  new ToolIndex(tools);
  const buildMs = performance.now() - t0;
  const search = (q: string) => indexFor(tools).search(q, 5);
  const scan = (q: string) => {
    const w = q.toLowerCase().split(/\s+/);
    return tools.filter((t) => w.some((x) => `${t.name} ${t.description} ${JSON.stringify(t.parameters)}`.toLowerCase().includes(x))).slice(0, 5);
  };
  for (const q of queries) search(q), scan(q); // warm-up
  const engineMs: number[] = [];
  const baselineMs: number[] = [];
  for (let round = 0; round < 15; round++) {
    let t = performance.now();
    for (const q of queries) search(q);
    engineMs.push((performance.now() - t) / queries.length);
    t = performance.now();
    for (const q of queries) scan(q);
    baselineMs.push((performance.now() - t) / queries.length);
  }
  table([{ tools: tools.length, queries: queries.length, 'index build ms (once)': buildMs.toFixed(2), 'tool_search ms/query': median(engineMs).toFixed(3), 'substring scan ms/query': median(baselineMs).toFixed(3), 'work item finds': search('work item').map((t) => t.name).join(' ') }]);
  result('tool_search_200_tools', 'ms', engineMs, baselineMs, { under: 5 });
} finally {
  await engine.close();
  await rm(home, { recursive: true, force: true });
}
