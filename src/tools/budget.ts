/**
 * The tool-prompt budget: the tool definitions of one model request stay within a token budget (a
 * share of the model's window). When every tool fits, the request is what it always was. When
 * not, the model gets a core set in compact form (compact.ts), `tool_search` (tool-search.ts) whose
 * description ends with a one-line list of the tools left out, and in full every tool it found
 * with tool_search earlier in the turn. One budget lives for one agent loop (a chat turn): what it
 * found stays for the turn.
 *
 * The allowlist and the gate are untouched: the tools come from `registry.visible(allowlist)`,
 * tool_search searches only those, and every call still goes through `registry.runBatch` with the
 * caller's allowlist (plus tool_search itself while it is offered).
 */
import { compactTool } from './compact.js';
import type { CallOptions, ToolRegistry } from './registry.js';
import { indexFor } from './search.js';
import { TOOL_SEARCH, type ToolSearchContext, type ToolSearchScope } from './tool-search.js';
import type { AnyTool, CallOutcome, ToolCall, ToolContext } from './types.js';

/** Tools sent first when not all fit and the caller has no allowlist (whose order is used instead). */
export const DEFAULT_CORE_TOOLS = ['read_file', 'edit_file', 'write_file', 'list_dir', 'grep', 'run_shell'];

export interface ToolBudgetOptions {
  registry: Pick<ToolRegistry, 'visible' | 'runBatch' | 'get' | 'all'>;
  /** Tokens the tool definitions of one request may take. */
  budget: number;
  /** Token counts of texts, with the model's tokenizer or a BPE estimate (providers/tokens.ts). */
  count: (texts: string[]) => Promise<number[]>;
  /** Tool names sent first when not all fit: the agent's allowlist order, or DEFAULT_CORE_TOOLS. */
  core?: readonly string[];
}

/** What one request carries of the tools. */
export interface ToolPlan {
  /** `all`: every tool in full (the request as without a budget); `budgeted`: core, tool_search, found. */
  mode: 'all' | 'budgeted';
  tools: AnyTool[];
  /** Tokens of the tool definitions as sent. */
  tokens: number;
  /** Tokens every visible tool would take in full. */
  allTokens: number;
  /** Visible tools not sent (found only through tool_search). */
  deferred: number;
  /** The block was far under the budget and its tokens are estimated, not counted. */
  estimated?: true;
}

/** A tool as a request carries it (OpenAI's function form; the other wire forms differ by a few tokens a tool). */
export const wireJson = (t: AnyTool) => JSON.stringify({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } });

/** Tokens of a list of definitions as one JSON array: each definition, plus a separator each and the brackets. */
async function tokensOf(tools: AnyTool[], count: ToolBudgetOptions['count']): Promise<number> {
  if (!tools.length) return 0;
  const counts = await count(tools.map(wireJson));
  return counts.reduce((a, b) => a + b, 0) + tools.length + 1;
}

export class ToolBudget {
  /** Tools tool_search found this turn, in the order found. */
  readonly found = new Set<string>();
  last: ToolPlan | undefined;

  constructor(private readonly o: ToolBudgetOptions) {}

  /** The tools of the next request (the agent loop asks once a step). */
  async visible(allowlist?: ReadonlySet<string>): Promise<AnyTool[]> {
    this.last = await this.plan(allowlist);
    return this.last.tools;
  }

  lastTokens(): number {
    return this.last?.tokens ?? 0;
  }

  async plan(allowlist?: ReadonlySet<string>): Promise<ToolPlan> {
    const { registry, budget, count } = this.o;
    const all = registry.visible(allowlist).filter((t) => t.name !== TOOL_SEARCH);
    // Byte-level BPE never makes more tokens than bytes: a block that small fits without loading a
    // tokenizer, and its size is told at 4 characters a token.
    const bytes = all.reduce((n, t) => n + Buffer.byteLength(wireJson(t)) + 1, 1);
    if (bytes <= budget) {
      const estimate = Math.ceil(bytes / 4);
      return { mode: 'all', tools: all, tokens: estimate, allTokens: estimate, deferred: 0, estimated: true };
    }
    const allTokens = await tokensOf(all, count);
    if (allTokens <= budget) return { mode: 'all', tools: all, tokens: allTokens, allTokens, deferred: 0 };

    const search = registry.get(TOOL_SEARCH);
    const byName = new Map(all.map((t) => [t.name, t]));
    const found = [...this.found].filter((n) => byName.has(n)).map((n) => byName.get(n)!);
    const coreNames = this.o.core ?? DEFAULT_CORE_TOOLS;
    const core = coreNames.filter((n) => byName.has(n) && !this.found.has(n)).map((n) => compactTool(byName.get(n)!));
    // The list of tools left out names each one; when that alone would take half the budget it counts
    // them by group; in the smallest windows it is left out and tool_search itself is sent compact.
    let list: OthersList = 'names';
    const withSearch = (sent: AnyTool[]) => (search ? [searchTool(search, all, sent, list)] : []);
    if ((await tokensOf(withSearch(found.concat(core)), count)) > budget / 2) list = 'groups';

    // Every found tool is sent (the model asked for it): compact at least, then in full, best first,
    // while the budget allows; then the core, compact, in its order.
    const chosen: Array<{ tool: AnyTool; core: boolean }> = [];
    let used = await tokensOf(withSearch(found.concat(core)), count);
    const cost = async (tool: AnyTool) => (await count([wireJson(tool)]))[0] + 1;
    const take = async (tool: AnyTool, isCore: boolean) => {
      const n = await cost(tool);
      if (used + n > budget) return;
      chosen.push({ tool, core: isCore });
      used += n;
    };
    const foundCompact = found.map(compactTool);
    for (const tool of foundCompact) await take(tool, false);
    for (let i = 0; i < found.length; i++) {
      const at = chosen.findIndex((c) => c.tool === foundCompact[i]);
      const more = at < 0 ? 0 : (await cost(found[i])) - (await cost(foundCompact[i]));
      if (at < 0 || used + more > budget) continue;
      chosen[at] = { tool: found[i], core: false };
      used += more;
    }
    for (const tool of core) await take(tool, true);
    // The list of tools left out grew by those that did not fit: shorten it, then drop tools from the end until all fits.
    for (;;) {
      const coreSent = chosen.filter((c) => c.core).map((c) => c.tool);
      const foundSent = chosen.filter((c) => !c.core).map((c) => c.tool);
      const tools = [...coreSent, ...withSearch([...coreSent, ...foundSent]), ...foundSent];
      const tokens = await tokensOf(tools, count);
      if (tokens <= budget || (list === 'none' && !chosen.length)) return { mode: 'budgeted', tools, tokens, allTokens, deferred: all.length - chosen.length };
      if (list !== 'none') list = list === 'names' ? 'groups' : 'none';
      else chosen.pop();
    }
  }

  /** Runs a batch through the registry; while tool_search is offered it may be called and searches this budget's tools. */
  runBatch(calls: ToolCall[], ctx: Omit<ToolContext, 'callId'>, options: CallOptions = {}): Promise<CallOutcome[]> {
    if (this.last?.mode !== 'budgeted' || !this.o.registry.get(TOOL_SEARCH)) return this.o.registry.runBatch(calls, ctx, options);
    // No allowlist means every tool that is not opt-in: the same set, named, plus tool_search.
    const names = options.allowlist ? [...options.allowlist] : this.o.registry.all().filter((t) => !t.optIn).map((t) => t.name);
    const allowlist = new Set([...names, TOOL_SEARCH]);
    const scope: ToolSearchScope = {
      search: (query, limit) => {
        const tools = this.o.registry.visible(options.allowlist).filter((t) => t.name !== TOOL_SEARCH);
        const hits = indexFor(tools).search(query, limit);
        for (const t of hits) this.found.add(t.name);
        return hits;
      },
    };
    const scoped: Omit<ToolSearchContext, 'callId'> = { ...ctx, toolSearch: scope };
    return this.o.registry.runBatch(calls, scoped, { ...options, allowlist });
  }
}

type OthersList = 'names' | 'groups' | 'none';

/**
 * tool_search as this request carries it: its description ends with the tools left out (MCP
 * servers as one entry each, so a server's tools cost no prompt until found), or their count by
 * group, or, when even that does not fit, nothing, and the tool itself in compact form.
 */
function searchTool(search: AnyTool, all: AnyTool[], sent: AnyTool[], list: OthersList): AnyTool {
  if (list === 'none') return compactTool(search);
  const sentNames = new Set(sent.map((t) => t.name));
  const names: string[] = [];
  const counts = new Map<string, number>();
  for (const t of all) {
    if (sentNames.has(t.name)) continue;
    const source = t.source ?? 'built-in';
    const key = source !== 'built-in' ? `tools of MCP server ${source}` : list === 'groups' ? `${t.group} tools` : undefined;
    if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
    else names.push(t.name);
  }
  const others = [...names, ...[...counts].map(([key, n]) => `${n} ${key}`)];
  if (!others.length) return search;
  return { ...search, description: `${search.description} Other tools: ${others.join(', ')}.` };
}
