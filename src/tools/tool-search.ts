/**
 * `tool_search`: finds tools by words when the request could not carry every tool (budget.ts).
 * Read-only (its own concurrency class: it runs beside other reads), opt-in (never offered as
 * part of "every tool": the budget offers it when it defers tools), and it searches only the
 * tools the caller may call. What it finds is sent in full from the next step of the turn on.
 */
import { LIMITS } from '../kernel/limits.js';
import { firstSentence } from './compact.js';
import { defineTool, type AnyTool, type ToolContext } from './types.js';

export const TOOL_SEARCH = 'tool_search';

/** What a budget hands tool_search through the call's context. */
export interface ToolSearchScope {
  /** The best tools for the query among those the caller may call; they join the turn's tools. */
  search(query: string, limit: number): AnyTool[];
}

export interface ToolSearchContext extends ToolContext {
  toolSearch?: ToolSearchScope;
}

export const toolSearchTool = defineTool<{ query: string; limit?: number }>({
  name: TOOL_SEARCH,
  group: 'meta',
  readOnly: true,
  optIn: true,
  description: 'Find more tools by words for what they do (matched against tool names, descriptions and parameters); the tools found join your tool list from your next step on.',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'words such as "work item" or "database query"' },
      limit: { type: 'integer', minimum: 1, maximum: LIMITS.toolSearchResultsMax },
    },
    required: ['query'],
    additionalProperties: false,
  },
  permission: 'other',
  async run({ query, limit }, ctx) {
    const scope = (ctx as ToolSearchContext).toolSearch;
    if (!scope) return 'Every tool you may call is already in your tool list: call the one you need directly.';
    const hits = scope.search(query, limit ?? LIMITS.toolSearchResults);
    if (!hits.length) return `No tool matches "${query}". Try other words for what the tool does (for example "read file", "work item", "run command").`;
    const lines = hits.map((t) => `- ${t.name}: ${firstSentence(t.description)}`);
    return `Found ${hits.length} tool${hits.length === 1 ? '' : 's'}; from your next step on they are in your tool list with their full parameters:\n${lines.join('\n')}`;
  },
});
