/**
 * POST /api/vaults/<vault>/capture: a model turns free text into inbox notes. One pass through the
 * ONE agent loop (src/agent), billed to its own run (source `vault`), with the named agent's prompt
 * and model when one is given. The model answers JSON; each note it asks for is staged through the
 * same duplicate-proof `propose` an agent's vault tool uses, so capture never copies a note.
 */
import { runAgent } from '../../agent/index.js';
import { badRequest } from '../../kernel/errors.js';
import type { RunLedger } from '../../kernel/runs.js';
import type { ProviderService } from '../../providers/service.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { agentOps } from './agent-ops.js';
import type { VaultsCore } from './service.js';

export interface CaptureDeps {
  runs: RunLedger;
  providers: ProviderService;
  tools: ToolRegistry;
  /** An agent's prompt and model (agents.resolve); throws 404 for an unknown one. */
  resolveAgent: (name: string) => Promise<{ name: string; system: string; model?: string; provider?: string; settings?: Record<string, unknown> }>;
}

const INSTRUCTIONS = (types: string[], defaultType: string) =>
  [
    'Turn the text the user sends into notes for a note vault.',
    'Answer with JSON only, no prose: {"notes": [{"name": "<short title, no slashes>", "type": "<one of the types>", "content": "<markdown body>"}]}.',
    `The types are: ${types.join(', ')} (use "${defaultType}" when unsure). One note per distinct idea; link related notes with [[name]].`,
  ].join('\n');

/** The notes a model answered with: `{"notes": [...]}` or a bare array, possibly inside a code fence. */
export function parseCaptured(text: string): Array<{ name: string; type?: string; content: string }> {
  const start = text.search(/[[{]/);
  const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
  if (start === -1 || end < start) throw new Error('the model did not answer with JSON notes');
  let data: unknown;
  try {
    data = JSON.parse(text.slice(start, end + 1));
  } catch {
    throw new Error('the model answered with JSON that does not parse');
  }
  const list = Array.isArray(data) ? data : (data as { notes?: unknown }).notes;
  if (!Array.isArray(list)) throw new Error('the model answer has no "notes" list');
  return list
    .filter((n): n is Record<string, unknown> => !!n && typeof n === 'object' && typeof (n as { name?: unknown }).name === 'string')
    .map((n) => ({ name: n.name as string, type: typeof n.type === 'string' ? n.type : undefined, content: typeof n.content === 'string' ? n.content : '' }));
}

export function captureApi(core: VaultsCore, ops: ReturnType<typeof agentOps>, deps: CaptureDeps) {
  return async function capture(vault: string, body: { text: string; agent?: string }) {
    const v = await core.get(vault);
    if (!body.text.trim()) throw badRequest('send {"text": "..."} with the text to capture');
    const agent = body.agent ? await deps.resolveAgent(body.agent) : undefined;
    const client = await deps.providers.resolve(agent?.provider, agent?.model);
    const run = deps.runs.start({ source: 'vault', agent: agent?.name, model: client.modelId, provider: client.provider, title: `capture into ${vault}` });
    const who = agent?.name ?? 'capture';
    void (async () => {
      try {
        const result = await runAgent({
          model: client,
          system: [agent?.system, INSTRUCTIONS(Object.keys(v.schema.types), v.schema.defaultType)].filter(Boolean).join('\n\n'),
          messages: [{ role: 'user', content: body.text }],
          tools: deps.tools,
          allowlist: new Set(),
          ctx: { signal: run.signal, emit: run.emit, runId: run.id, agent: agent?.name, attended: false, depth: 0 },
          maxTurns: 1,
          settings: agent?.settings,
        });
        if (result.status !== 'completed') throw new Error(result.error ?? `the model did not finish (${result.status})`);
        const files: string[] = [];
        const duplicates: Array<{ name: string; existing: string }> = [];
        const errors: string[] = [];
        for (const note of parseCaptured(result.text)) {
          try {
            const type = note.type && v.schema.types[note.type] ? note.type : v.schema.defaultType;
            const r = await ops.propose(vault, { ...note, type }, who);
            if (r.duplicate) duplicates.push({ name: r.name, existing: core.virtual(v, r.existing) });
            else files.push(core.virtual(v, r.path));
          } catch (err) {
            errors.push(`${note.name}: ${(err as Error).message}`);
          }
        }
        run.emit('vault.captured', { vault, files, duplicates, errors });
        await run.finish('completed');
      } catch (err) {
        const error = (err as Error).message;
        run.emit('vault.captured', { vault, files: [], duplicates: [], errors: [error] });
        await run.finish(run.signal.aborted ? 'stopped' : 'failed', { error });
      }
    })();
    return { ok: true as const, runId: run.id };
  };
}
