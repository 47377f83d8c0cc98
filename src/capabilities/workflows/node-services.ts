/**
 * The services node types reach, built from what the composition root passes in: the ONE agent loop
 * (src/agent) with the tool registry and the permission gate, the shell service's permission and
 * exec (the run_shell path: denylist, gate, sandbox, spawn), HTTP through the URL floor, secrets and
 * notifications. Nothing here imports another capability's service; engine.ts hands them over.
 */
import { runAgent, underCallPrefix } from '../../agent/index.js';
import type { ModelClient } from '../../providers/types.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { AnyTool, Gate, PermissionRequest } from '../../tools/types.js';
import type { ResolvedAgent } from '../agents/types.js';
import { decide, type PermissionsFile } from '../../permissions/rules.js';
import type { NotifyInput } from '../notifications/types.js';
import { createHttpRequester, type FloorLike } from './http-request.js';
import type { NodeServices } from './types.js';

export interface NodeServiceDeps {
  tools: ToolRegistry;
  /** The permission gate command nodes pass (the registry's gate for agent tool calls). */
  gate: Gate;
  resolveAgent(name: string): Promise<ResolvedAgent>;
  resolveModel(provider?: string, model?: string): Promise<ModelClient>;
  settings(): { chatMaxTurns: number; compactFraction: number };
  shell: {
    permission(command: string): Promise<PermissionRequest>;
    exec(o: { command: string; cwd?: string; signal?: AbortSignal; emit?: (kind: string, p?: Record<string, unknown>) => void; callId?: string }): Promise<{ exitCode: number; text: string }>;
  };
  floor: FloorLike;
  secret(name: string): Promise<string | undefined>;
  notify(input: NotifyInput): Promise<unknown>;
  /** The saved rules and the unattended default (warnings for triggered workflows). */
  rules?: () => Promise<PermissionsFile>;
}

export function createNodeServices(deps: NodeServiceDeps): NodeServices {
  return {
    async agent(req) {
      let system = req.system;
      let allow = req.tools;
      let model: string | undefined;
      let provider: string | undefined;
      let maxTurns = req.maxTurns;
      let settings: ResolvedAgent['settings'] | undefined;
      if (req.agent) {
        const agent = await deps.resolveAgent(req.agent);
        system = agent.system;
        // The agent's own tools: list outranks the node's (seed 001 §5 rule 5).
        allow = agent.tools ?? req.tools;
        model = agent.model;
        provider = agent.provider;
        maxTurns = req.maxTurns ?? agent.maxTurns;
        settings = agent.settings;
      }
      const client = await deps.resolveModel(provider, model);
      const s = deps.settings();
      // A call refused because a model wrote what runs (permission.denied, authored) fails the node with
      // that sentence: the agent must not carry on as if the refused step had been optional.
      let refused: string | undefined;
      const halt = new AbortController();
      const emit: typeof req.emit = (kind, p) => {
        if (kind === 'permission.denied' && p?.authored && refused === undefined) {
          refused = String(p.reason);
          halt.abort(new Error(refused));
        }
        req.emit(kind, p);
      };
      const result = await runAgent({
        model: client,
        system,
        messages: [{ role: 'user', content: req.prompt }],
        // Call ids are `<nodeId>/<model's id>`: two agent nodes of one run may pick the same ids.
        tools: underCallPrefix(deps.tools, req.nodeId),
        allowlist: allow ? new Set(allow) : undefined,
        ctx: { signal: AbortSignal.any([req.signal, halt.signal]), emit, runId: req.runId, agent: req.agent, attended: req.attended, authors: req.authors, depth: 0 },
        maxTurns: maxTurns ?? s.chatMaxTurns,
        settings,
        compaction: { fraction: s.compactFraction },
        onDelta: req.onDelta,
      });
      if (refused !== undefined && !req.signal.aborted) return { text: result.text, status: 'failed', error: refused };
      return { text: result.text, status: result.status, error: result.error };
    },

    async command(req) {
      const request = await deps.shell.permission(req.command);
      if (request.hardDeny) throw new Error(request.hardDeny);
      const tool: AnyTool = deps.tools.get('run_shell') ?? { name: 'run_shell', group: 'shell', description: '', parameters: {}, permission: 'code', run: async () => '' };
      if (!req.approved) {
        const decision = await deps.gate.check(tool, request, { command: req.command }, { signal: req.signal, emit: req.emit, runId: req.runId, callId: req.callId, attended: req.attended, authors: req.authors });
        if (!decision.allow) throw new Error(decision.reason);
      }
      const result = await deps.shell.exec({ command: req.command, cwd: req.cwd, signal: req.signal, emit: req.emit, callId: req.callId });
      return { exitCode: result.exitCode, text: result.text };
    },

    async unattendedNeeds(command) {
      if (!deps.rules) return undefined;
      const [request, file] = await Promise.all([deps.shell.permission(command), deps.rules()]);
      if (file.unattended === 'allow') return undefined;
      if (request.hardDeny) return { keys: [], why: request.hardDeny, never: true };
      // A forced prompt (command substitution, eval ...) is refused unattended whatever the rules say.
      if (request.forcePrompt) return { keys: [], why: request.forcePrompt };
      const keys = request.keys?.length ? request.keys : [request.key];
      const needed = keys.filter((k) => decide(file.rules, k) !== 'allow');
      return needed.length ? { keys: needed } : undefined;
    },

    http: createHttpRequester(deps.floor),
    secret: (name) => deps.secret(name),
    notify: (input) => deps.notify(input),
  };
}
