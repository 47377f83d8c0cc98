/**
 * Claude Code compatibility. A subagent file written for Claude Code (`name`, `description`,
 * `tools: Read, Grep`, `model: sonnet`) loads as is: its tool names are mapped to the engine's
 * built-ins here, and its model aliases mean "the default provider's model" because an alias such as
 * `sonnet` names no concrete model on whatever provider this engine is configured with.
 */

/** Claude Code tool name -> engine tool name. Names not listed here are kept as written. */
export const CLAUDE_CODE_TOOLS: Readonly<Record<string, string>> = {
  Read: 'read_file',
  Write: 'write_file',
  Edit: 'edit_file',
  MultiEdit: 'multi_edit',
  LS: 'list_dir',
  Grep: 'grep',
  Glob: 'glob',
  Bash: 'run_shell',
  WebFetch: 'web_fetch',
  WebSearch: 'web_search',
  TodoWrite: 'set_plan',
  Task: 'delegate',
  Skill: 'load_skill',
};

/** Claude Code model aliases; each reads as "no model of its own" (the default provider decides). */
export const CLAUDE_CODE_MODEL_ALIASES: ReadonlySet<string> = new Set(['inherit', 'sonnet', 'opus', 'haiku']);

/** Claude Code writes MCP tools as `mcp__<server>__<tool>`; the engine registers them as `<server>_<tool>`. */
export function mapClaudeCodeTool(name: string): string {
  const mcp = /^mcp__([^_].*?)__(.+)$/.exec(name);
  if (mcp) return `${mcp[1]}_${mcp[2]}`;
  return CLAUDE_CODE_TOOLS[name] ?? name;
}
