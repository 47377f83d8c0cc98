/**
 * Reading and checking agent definitions. Two doors: a PUT body is checked strictly (a 400 that says
 * which field and how to fix it), and a file on disk, perhaps written by hand for Claude Code, is read
 * leniently (what cannot be used is dropped and reported as a warning, never a refusal to load).
 */
import { badRequest } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { CLAUDE_CODE_MODEL_ALIASES, mapClaudeCodeTool } from './claude-code.js';
import { EFFORT_VALUES, GENERATION_FIELDS, type AgentDefinition, type Effort, type GenerationSettings } from './types.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/**
 * Names no agent can take, and why. Every other valid name is reachable everywhere: /api/agents/<name>,
 * /api/memory/<name>/<file>, /api/history/agent/<name>, the memory tool's own folder.
 */
export const RESERVED: ReadonlyMap<string, string> = new Map([
  ['order', '"order" cannot be an agent name: /api/agents/order is the route of the agent order ({groups, agents}); choose another name'],
  ['shared', '"shared" cannot be an agent name: it is the memory scope every memory-enabled agent shares, so the agent\'s own memory would be everyone\'s; choose another name'],
]);

/** The tool families of seed 001 §1; a family is not a value of `tools:`. */
export const TOOL_FAMILIES = ['files', 'shell', 'diagnostics', 'web', 'agent', 'meta', 'vault', 'work', 'workflow', 'dashboard', 'atlas', 'db', 'database', 'browser'];

/** What the validators need to know of the registry. */
export interface ToolNames {
  has(name: string): boolean;
  /** Registered tool names (for suggestions). */
  names(): string[];
  /** Group (family) names of registered tools, MCP servers included. */
  groups(): string[];
  /** Registered tools of one group. */
  members(group: string): string[];
}

export function checkAgentName(name: string): string {
  if (typeof name !== 'string' || !name) throw badRequest('agent name is empty; use letters, digits, dot, dash or underscore');
  if (name.length > LIMITS.agentNameChars) throw badRequest(`agent name is longer than ${LIMITS.agentNameChars} characters; use a shorter name`);
  if (!NAME.test(name) || name.includes('..')) {
    throw badRequest(`agent name "${name}" may hold only letters, digits, dot, dash and underscore (no slashes or other path characters), and must start with a letter or digit`);
  }
  // Case-blind: on a case-insensitive disk `Shared` would be the same memory folder as `shared`.
  const reserved = RESERVED.get(name.toLowerCase());
  if (reserved) throw badRequest(reserved);
  return name;
}

/** Why a `tools:` entry is refused, or undefined when it is a registered tool. */
export function toolNameProblem(entry: string, tools: ToolNames): string | undefined {
  // seed 001 §5: the vault tool is opt-in by `vault: <mount>`, whatever `tools:` says (registered or not).
  if (entry === 'vault') return 'tools: "vault" is not set through tools:; the vault tool is added to an agent whose definition sets vault: <mount>, and an agent without vault: never sees it';
  if (tools.has(entry)) return undefined;
  if (/[*?[\]{}]/.test(entry)) {
    const prefix = entry.split(/[*?[{]/)[0];
    const matches = prefix ? tools.names().filter((n) => n.startsWith(prefix)) : [];
    return `tools: "${entry}" is a pattern, and an allowlist holds exact tool names only (no globs, wildcards or prefixes, so "${entry}" would match nothing)${matches.length ? `; list the tools you mean one by one, e.g. ${matches.slice(0, 6).join(', ')}` : ''}`;
  }
  const familyMembers = (family: string) => [...new Set([...tools.members(family), ...tools.names().filter((n) => n.startsWith(family + '_'))])];
  if (TOOL_FAMILIES.includes(entry) || tools.groups().includes(entry)) {
    const members = familyMembers(entry);
    return `tools: "${entry}" is a tool family, not a tool; an allowlist holds exact tool names only, so list each tool you want${members.length ? `, e.g. ${members.slice(0, 6).join(', ')}` : ''} (GET /api/tools lists every name and its group)`;
  }
  const prefixed = tools.names().filter((n) => n.startsWith(entry) && entry.length >= 2);
  if (prefixed.length) {
    return `tools: "${entry}" is not a tool name; an allowlist holds exact names, not prefixes: write the full names, e.g. ${prefixed.slice(0, 6).join(', ')}`;
  }
  const mapped = mapClaudeCodeTool(entry);
  if (mapped !== entry) {
    return tools.has(mapped)
      ? `tools: "${entry}" is a Claude Code tool name; the engine's tool is "${mapped}"`
      : `tools: "${entry}" is a Claude Code tool name; the engine would call it "${mapped}", which is not registered now (connect its MCP server first; GET /api/tools lists the exact names)`;
  }
  return `tools: "${entry}" is not a registered tool; GET /api/tools lists the exact names`;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

const PUT_FIELDS: readonly string[] = ['name', 'description', 'system', 'model', 'tools', 'maxTurns', 'memory', 'vault', 'group', 'skills', ...GENERATION_FIELDS];

type FieldErr = (msg: string) => never;

/** Checks one optional field; returns the cleaned value or undefined. Shared by both doors. */
function field(key: string, value: unknown, fail: FieldErr): unknown {
  if (value === undefined || value === null) return key === 'group' && value === null ? null : undefined;
  switch (key) {
    case 'description':
    case 'system':
      if (typeof value !== 'string') fail(`${key} must be a string`);
      return value;
    case 'model':
    case 'vault':
      if (typeof value !== 'string' || !value.trim()) fail(`${key} must be a non-empty string (omit it for none)`);
      return (value as string).trim();
    case 'group':
      if (typeof value !== 'string') fail('group must be a string or null');
      return (value as string).trim() || null;
    case 'memory':
      if (typeof value !== 'boolean') fail('memory must be true or false');
      return value;
    case 'maxTurns':
    case 'maxTokens':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) fail(`${key} must be a whole number of at least 1`);
      return value;
    case 'seed':
      if (typeof value !== 'number' || !Number.isInteger(value)) fail('seed must be a whole number');
      return value;
    case 'temperature':
      if (typeof value !== 'number' || !(value >= 0 && value <= 2)) fail('temperature must be a number from 0 to 2');
      return value;
    case 'topP':
      if (typeof value !== 'number' || !(value > 0 && value <= 1)) fail('topP must be a number greater than 0 and at most 1');
      return value;
    case 'effort':
      if (typeof value !== 'string' || !EFFORT_VALUES.includes(value as Effort)) fail(`effort must be one of ${EFFORT_VALUES.join(', ')}`);
      return value;
    case 'extraBody':
      if (!isObject(value)) fail('extraBody must be a JSON object (extra fields sent with every model request)');
      return value;
    case 'skills':
    case 'tools': {
      const list = typeof value === 'string' ? value.split(',') : value;
      if (!Array.isArray(list) || list.some((x) => typeof x !== 'string')) fail(`${key} must be an array of names`);
      return (list as string[]).map((s) => s.trim()).filter(Boolean);
    }
  }
  return value;
}

/** Strict check of a PUT /api/agents/<name> body. */
export function definitionFromBody(name: string, body: unknown, tools: ToolNames): AgentDefinition {
  checkAgentName(name);
  if (!isObject(body)) throw badRequest('send the agent as a JSON object: {description, system, model?, tools?, ...}');
  for (const key of Object.keys(body)) {
    if (!PUT_FIELDS.includes(key)) throw badRequest(`unknown field "${key}"; an agent takes ${PUT_FIELDS.filter((f) => f !== 'name').join(', ')}`);
  }
  if (body.name !== undefined && body.name !== name) throw badRequest(`name "${String(body.name)}" in the body differs from "${name}" in the URL; the URL names the agent`);
  const fail: FieldErr = (msg) => {
    throw badRequest(msg);
  };
  if (typeof body.description !== 'string' || !body.description.trim()) fail('description is required: one sentence saying what this agent is for (it is shown to models choosing whom to delegate to)');
  if (body.system !== undefined && typeof body.system !== 'string') fail('system must be a string (the system prompt)');
  const def: AgentDefinition = { name, description: (body.description as string).trim(), system: (body.system as string | undefined) ?? '' };
  for (const key of PUT_FIELDS) {
    if (key === 'name' || key === 'description' || key === 'system') continue;
    const value = field(key, body[key], fail);
    if (value !== undefined) (def as unknown as Record<string, unknown>)[key] = value;
  }
  if (body.tools !== undefined && !Array.isArray(body.tools)) fail('tools must be an array of exact tool names, e.g. ["read_file", "grep"]');
  for (const entry of def.tools ?? []) {
    const problem = toolNameProblem(entry, tools);
    if (problem) fail(problem);
  }
  if (def.skills) for (const s of def.skills) if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(s)) fail(`skills: "${s}" is not a skill name (letters, digits, dot, dash, underscore)`);
  return def;
}

/**
 * Lenient read of a file on disk: Claude Code names are mapped, fields that cannot be used are dropped
 * with a warning, and `name` in the frontmatter never overrides the file name.
 */
export function definitionFromFile(name: string, data: Record<string, unknown>, body: string, tools: ToolNames): AgentDefinition {
  const warnings: string[] = [];
  const def: AgentDefinition = { name, description: '', system: body.replace(/^\n+/, '') };
  if (data.name !== undefined && data.name !== name) {
    warnings.push(`name "${String(data.name)}" in the frontmatter differs from the file name; the file name "${name}" is the agent's name`);
  }
  for (const key of PUT_FIELDS) {
    if (key === 'name' || key === 'system' || data[key] === undefined) continue;
    try {
      const value = field(key, data[key], (msg) => {
        throw new Error(msg);
      });
      if (value !== undefined) (def as unknown as Record<string, unknown>)[key] = value;
    } catch (err) {
      warnings.push(`${(err as Error).message}; the field was ignored`);
    }
  }
  if (def.model && CLAUDE_CODE_MODEL_ALIASES.has(def.model)) {
    if (def.model !== 'inherit') warnings.push(`model "${def.model}" is a Claude Code alias; the default provider's model is used`);
    delete def.model;
  }
  if (def.tools) {
    const kept: string[] = [];
    for (const entry of def.tools) {
      const mapped = tools.has(entry) ? entry : mapClaudeCodeTool(entry);
      if (tools.has(mapped)) {
        if (!kept.includes(mapped)) kept.push(mapped);
        continue;
      }
      // An MCP server may simply be disconnected now: keep an MCP-shaped name, it may come back.
      if (/^[A-Za-z0-9-]+_[A-Za-z0-9_.-]+$/.test(mapped) && !tools.names().some((n) => n.startsWith(mapped.split('_')[0] + '_'))) {
        if (!kept.includes(mapped)) kept.push(mapped);
        warnings.push(`tools: "${mapped}" is not registered now (an MCP server may be disconnected); it is kept`);
        continue;
      }
      warnings.push(toolNameProblem(entry, tools) ?? `tools: "${entry}" is not a registered tool`);
    }
    def.tools = kept;
  }
  if (warnings.length) def.warnings = warnings;
  return def;
}

/** A definition's generation settings (absent ones as undefined). */
export function generationSettings(def: AgentDefinition): GenerationSettings {
  return Object.fromEntries(GENERATION_FIELDS.map((k) => [k, def[k]])) as GenerationSettings;
}

/** The frontmatter written for a definition: Claude Code's shape (comma strings), engine fields after. */
export function definitionToFrontmatter(def: AgentDefinition, keep: Record<string, unknown> = {}): Record<string, unknown> {
  const known = new Set(PUT_FIELDS);
  const extra = Object.fromEntries(Object.entries(keep).filter(([k]) => !known.has(k)));
  return {
    name: def.name,
    description: def.description,
    model: def.model,
    tools: def.tools ? def.tools.join(', ') : undefined,
    maxTurns: def.maxTurns,
    memory: def.memory,
    vault: def.vault,
    group: def.group ?? undefined,
    skills: def.skills ? def.skills.join(', ') : undefined,
    ...generationSettings(def),
    ...extra,
  };
}
