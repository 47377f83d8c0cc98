/**
 * Finding tools by words: BM25 over each tool's name, description and parameter names, in memory,
 * no network. Names weigh most (a tool is usually asked for by what it is called); words are
 * lowercased, split on anything that is not a letter or digit (so `work_create` is "work create")
 * and a plural `s` is dropped, so "work items" finds "work item".
 */
import type { AnyTool } from './types.js';

const K1 = 1.2;
const B = 0.75;
/** How many times a word of the name counts against one of the description. */
const NAME_WEIGHT = 3;
const PARAM_WEIGHT = 2;

export function words(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (!raw) continue;
    out.push(raw.length > 3 && raw.endsWith('s') && !raw.endsWith('ss') ? raw.slice(0, -1) : raw);
  }
  return out;
}

/** Parameter names of a JSON schema, nested objects and array items included. */
export function parameterNames(schema: unknown, out: string[] = []): string[] {
  if (!schema || typeof schema !== 'object') return out;
  const s = schema as { properties?: Record<string, unknown>; items?: unknown };
  for (const [name, sub] of Object.entries(s.properties ?? {})) {
    out.push(name);
    parameterNames(sub, out);
  }
  if (s.items) parameterNames(s.items, out);
  return out;
}

interface Doc {
  tool: AnyTool;
  tf: Map<string, number>;
  length: number;
}

export class ToolIndex {
  private readonly docs: Doc[] = [];
  private readonly df = new Map<string, number>();
  private readonly avgLength: number;

  constructor(tools: readonly AnyTool[]) {
    let total = 0;
    for (const tool of tools) {
      const tf = new Map<string, number>();
      const add = (list: string[], weight: number) => {
        for (const w of list) tf.set(w, (tf.get(w) ?? 0) + weight);
      };
      add(words(tool.name), NAME_WEIGHT);
      add(words(parameterNames(tool.parameters).join(' ')), PARAM_WEIGHT);
      add(words(tool.description), 1);
      let length = 0;
      for (const [w, n] of tf) {
        length += n;
        this.df.set(w, (this.df.get(w) ?? 0) + 1);
      }
      total += length;
      this.docs.push({ tool, tf, length });
    }
    this.avgLength = this.docs.length ? total / this.docs.length : 1;
  }

  /** The best `limit` tools for the query, best first; tools that share no word with it are left out. */
  search(query: string, limit: number): AnyTool[] {
    const terms = [...new Set(words(query))];
    const n = this.docs.length;
    const scored: Array<{ tool: AnyTool; score: number }> = [];
    for (const doc of this.docs) {
      let score = 0;
      for (const term of terms) {
        const f = doc.tf.get(term);
        if (!f) continue;
        const df = this.df.get(term)!;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * doc.length) / this.avgLength));
      }
      // A query that is a tool's exact name finds that tool first.
      if (doc.tool.name === query.trim()) score += 100;
      if (score > 0) scored.push({ tool: doc.tool, score });
    }
    scored.sort((a, b) => b.score - a.score);
    return scored.slice(0, limit).map((s) => s.tool);
  }
}

/** The index of a tool set, kept while the set is the same (tool_search runs on every search; the tools rarely change). */
const indexes = new Map<string, ToolIndex>();
export function indexFor(tools: readonly AnyTool[]): ToolIndex {
  const key = tools.map((t) => `${t.name}:${t.description.length}`).join('\n');
  let index = indexes.get(key);
  if (!index) {
    if (indexes.size >= 8) indexes.delete(indexes.keys().next().value!);
    index = new ToolIndex(tools);
    indexes.set(key, index);
  }
  return index;
}
