/**
 * Agents: `<home>/agents/<name>.md` (frontmatter + system prompt body) and `agents/order.json`.
 * Read from disk on every call, so a file dropped in or edited by hand is seen at once.
 */
import { promises as fs } from 'node:fs';
import { badRequest, notFound } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { formatFrontmatter, HOME_LAYOUT, type Home, parseFrontmatter } from '../../kernel/home.js';
import type { AgentDefinition, AgentOrder, AgentSummary, HistoryRecorder, ResolvedAgent } from './types.js';
import { checkAgentName, definitionFromBody, definitionFromFile, definitionToFrontmatter, generationSettings, RESERVED, type ToolNames } from './validate.js';

export interface AgentsDeps {
  home: Home;
  tools: ToolNames;
  /** Records a version on every save (kind `agent`); wired once the history store exists. */
  history?: () => HistoryRecorder | undefined;
  /** Names of configured providers, so `model: <provider name>` picks that provider. */
  providerNames?: () => string[];
  /** Announces changes (`agents.changed {name, op}`) so clients refresh their lists. */
  emit?: (kind: string, payload: Record<string, unknown>) => void;
  /** Extra prompt blocks (skills, memory) for a resolved agent, supplied by the composition root. */
  promptBlocks?: (def: AgentDefinition, tools: string[] | undefined) => Promise<string[]>;
}

export type AgentsService = ReturnType<typeof createAgentsService>;

export function createAgentsService(deps: AgentsDeps) {
  const { home, tools } = deps;
  const dir = () => home.path(HOME_LAYOUT.agents);
  const file = (name: string) => home.path(HOME_LAYOUT.agents, `${name}.md`);
  const orderFile = () => home.path(HOME_LAYOUT.agents, 'order.json');

  async function readText(name: string): Promise<string | undefined> {
    try {
      return await fs.readFile(file(name), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  function parse(name: string, text: string): AgentDefinition {
    let doc;
    try {
      doc = parseFrontmatter(text);
    } catch (err) {
      throw badRequest(`agents/${name}.md has frontmatter that is not valid YAML (${(err as Error).message.split('\n')[0]}); fix the file by hand or save the agent again`);
    }
    return definitionFromFile(name, doc.data, doc.body, tools);
  }

  async function names(): Promise<string[]> {
    let entries: string[];
    try {
      entries = await fs.readdir(dir());
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    return entries
      .filter((f) => f.endsWith('.md'))
      .map((f) => f.slice(0, -3))
      .filter((n) => {
        try {
          checkAgentName(n);
          return true;
        } catch {
          return false;
        }
      })
      .sort();
  }

  /** The full definition, or 404. */
  async function get(name: string): Promise<AgentDefinition> {
    checkAgentName(name);
    const text = await readText(name);
    if (text === undefined) {
      const known = await names();
      throw notFound(`unknown agent "${name}"; ${known.length ? `the agents are ${known.join(', ')}` : 'no agents are defined (PUT /api/agents/<name> creates one)'}`);
    }
    return parse(name, text);
  }

  async function find(name: string): Promise<AgentDefinition | undefined> {
    try {
      return await get(name);
    } catch {
      return undefined;
    }
  }

  /**
   * GET /api/agents: exactly the seed's fields. A file that cannot be read still lists (empty fields), so
   * it can be found and fixed; GET /api/agents/<name> says what is wrong (a 400) or what was adjusted (`warnings`).
   */
  async function list(): Promise<AgentSummary[]> {
    const out: AgentSummary[] = [];
    for (const name of await names()) {
      const text = await readText(name);
      if (text === undefined) continue;
      let d: AgentDefinition | undefined;
      try {
        d = parse(name, text);
      } catch {
        d = undefined;
      }
      out.push({
        name,
        description: d?.description ?? '',
        memory: d?.memory === true,
        vault: d?.vault ?? null,
        group: d?.group ?? null,
        model: d?.model ?? null,
        tools: d?.tools ?? null,
      });
    }
    return out;
  }

  /** Creates or overwrites; keeps frontmatter keys the engine does not own (e.g. Claude Code's `color`). */
  async function save(name: string, body: unknown): Promise<AgentDefinition> {
    const def = definitionFromBody(name, body, tools);
    const previous = await readText(name);
    let keep: Record<string, unknown> = {};
    if (previous !== undefined) {
      try {
        keep = parseFrontmatter(previous).data;
      } catch {
        keep = {};
      }
    }
    const text = formatFrontmatter(definitionToFrontmatter(def, keep), def.system.endsWith('\n') || !def.system ? def.system : def.system + '\n');
    await home.writeAtomic(file(name), text);
    await deps.history?.()?.record('agent', name, text, previous === undefined ? 'created' : 'saved');
    deps.emit?.('agents.changed', { name, op: previous === undefined ? 'create' : 'update' });
    return parse(name, text);
  }

  async function remove(name: string): Promise<void> {
    checkAgentName(name);
    const previous = await readText(name);
    if (previous === undefined) throw notFound(`no agent "${name}" to delete; GET /api/agents lists the agents`);
    await deps.history?.()?.record('agent', name, previous, 'deleted');
    await fs.rm(file(name), { force: true });
    deps.emit?.('agents.changed', { name, op: 'delete' });
  }

  async function getOrder(): Promise<AgentOrder> {
    const raw = await home.readJson<Partial<AgentOrder>>(orderFile(), {});
    return { groups: Array.isArray(raw.groups) ? raw.groups : [], agents: Array.isArray(raw.agents) ? raw.agents : [] };
  }

  async function setOrder(body: unknown): Promise<AgentOrder> {
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('send {groups: string[], agents: string[]}');
    const b = body as Record<string, unknown>;
    // An agent definition sent here was meant as an agent named "order", which cannot exist.
    if ('description' in b || 'system' in b) throw badRequest(`${RESERVED.get('order')}; to set the order, send {groups: string[], agents: string[]}`);
    for (const key of Object.keys(b)) if (key !== 'groups' && key !== 'agents') throw badRequest(`unknown field "${key}"; the order takes groups and agents`);
    for (const key of ['groups', 'agents'] as const) {
      const v = b[key];
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw badRequest(`${key} must be an array of strings`);
    }
    const order = { groups: b.groups as string[], agents: b.agents as string[] };
    await home.writeJson(orderFile(), order);
    deps.emit?.('agents.changed', { op: 'order' });
    return order;
  }

  /** The agent as a turn runs it: the prompt with its blocks, the allowlist, model and settings. */
  async function resolve(name: string): Promise<ResolvedAgent> {
    const def = await get(name);
    let allow = def.tools ? [...def.tools] : undefined;
    // seed 001 §5: `vault` is opt-in by `vault:`, whatever `tools:` says; `memory: true` brings its tool.
    if (allow) {
      if (def.vault && !allow.includes('vault')) allow.push('vault');
      if (def.memory && !allow.includes('memory') && tools.has('memory')) allow.push('memory');
    }
    if (!def.vault && (allow || tools.has('vault'))) allow = (allow ?? tools.names()).filter((t) => t !== 'vault');
    // An opt-in tool is offered only by name, so `vault:` with no `tools:` spells out every tool.
    if (def.vault && !allow && tools.has('vault')) allow = tools.names();
    const blocks = deps.promptBlocks ? await deps.promptBlocks(def, allow) : [];
    if (!allow || allow.includes('delegate')) {
      const agentsBlock = await delegateBlock(name);
      if (agentsBlock) blocks.push(agentsBlock);
    }
    const system = [def.system.trim(), ...blocks].filter(Boolean).join('\n\n');
    const providers = deps.providerNames?.() ?? [];
    const byProvider = def.model && providers.includes(def.model);
    return {
      name,
      description: def.description,
      system,
      tools: allow,
      model: byProvider ? undefined : def.model,
      provider: byProvider ? def.model : undefined,
      maxTurns: def.maxTurns,
      memory: def.memory === true,
      vault: def.vault,
      skills: def.skills,
      settings: generationSettings(def),
    };
  }

  /**
   * The agents a `delegate` caller may hand work to, by name and description (as Claude Code lists them
   * for its Task tool), so a model need not guess names. Empty when there is no other agent.
   */
  async function delegateBlock(self?: string): Promise<string> {
    const others = (await list()).filter((a) => a.name !== self && a.description);
    if (!others.length) return '';
    const clip = (d: string) => {
      const line = d.replace(/\s+/g, ' ').trim();
      return line.length > LIMITS.agentListDescriptionChars ? `${line.slice(0, LIMITS.agentListDescriptionChars - 1)}…` : line;
    };
    return [
      '# Agents',
      'Hand a self-contained task to one of these agents with the delegate tool (by name). It starts fresh and sees only the task you write, so include every fact it needs.',
      ...others.map((a) => `- ${a.name}: ${clip(a.description)}`),
    ].join('\n');
  }

  /** For the history store: read and write an agent's file text (restore). */
  const historyAdapter = {
    read: async (name: string) => (checkAgentName(name), readText(name)),
    write: async (name: string, content: string) => {
      checkAgentName(name);
      await home.writeAtomic(file(name), content);
      deps.emit?.('agents.changed', { name, op: 'restore' });
    },
  };

  return { list, get, find, save, remove, getOrder, setOrder, resolve, names, delegateBlock, historyAdapter };
}
