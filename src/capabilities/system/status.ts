import type { FastifyInstance } from 'fastify';
import { arr, bool, obj, openObj, route, str } from '../../http/schemas.js';
import { answerEarly } from '../../http/server.js';
import type { RunLedger } from '../../kernel/runs.js';
import { engineVersion } from '../../kernel/version.js';
import type { SandboxStatus } from '../../sandbox/types.js';
import type { ToolRegistry } from '../../tools/registry.js';

/** What GET /api/status reports; each capability contributes its part through the composition root. */
export interface StatusSources {
  runs: RunLedger;
  tools: ToolRegistry;
  provider: () => { provider: string | null; providers: string[] };
  mcp: () => unknown;
  embeddings: () => boolean;
  /** The semantic index's state (docs/search.md). */
  index?: () => unknown;
  /** Whether commands run in the OS sandbox, and why not when they do not. */
  sandbox: () => Promise<SandboxStatus>;
  /** Pool mode (docs/pool.md): this engine's worker and the pool's live engines. */
  pool?: () => { worker: string; engines: readonly unknown[] };
}

export function statusRoutes(app: FastifyInstance, s: StatusSources): void {
  const schema = route('system', 'the engine at a glance: version, providers, tools, live runs', {
    response: {
      200: obj(
        {
          ok: { const: true },
          version: str('the engine version'),
          provider: { type: ['string', 'null'], description: 'the default provider' },
          providers: arr(str()),
          tools: arr(str()),
          mcp: openObj('MCP servers'),
          embeddings: bool('whether an embeddings endpoint is configured'),
          index: openObj('the semantic index behind search_code: {configured, state (off, building, ready, error), files, chunks, stale, building: {total, done} | null, error?}'),
          sandbox: obj(
            {
              available: bool('whether the OS sandbox can start here'),
              backend: { type: ['string', 'null'], description: 'bwrap, seatbelt, or null' },
              mode: str('workspace-write, read-only or off'),
              network: bool('whether sandboxed commands may use the network'),
              whenUnavailable: str('ask, refuse or run'),
              active: bool('whether commands run sandboxed now'),
              reason: { type: ['string', 'null'], description: 'why not, when not' },
            },
            [],
            { open: true },
          ),
          running: arr(openObj('a live run: {runId, source, startedAt, ...}')),
          worker: str("pool mode: this engine's worker id (run.started names it)"),
          pool: openObj("pool mode: {worker, boot, concurrency, servesOnly, engines: [{worker, boot, url, servesOnly, concurrency, version, startedAt, seenAt, self}]}, the pool's live engines"),
        },
        ['ok', 'version', 'provider', 'providers', 'tools', 'running'],
        { open: true },
      ),
    },
  });
  const status = async () => {
    const { provider, providers } = s.provider();
    return {
      ok: true,
      version: engineVersion(),
      provider,
      providers,
      tools: s.tools.names(),
      mcp: s.mcp(),
      embeddings: s.embeddings(),
      ...(s.index ? { index: s.index() } : {}),
      ...(s.pool ? { worker: s.pool().worker, pool: s.pool() } : {}),
      sandbox: await s.sandbox(),
      running: s.runs.live().map(({ record }) => ({
        runId: record.runId,
        source: record.source,
        startedAt: record.startedAt,
        workflowId: record.workflowId,
        agent: record.agent,
        sessionId: record.sessionId,
      })),
    };
  };
  app.get('/api/status', { schema }, status);
  // Clients poll it: answered before Fastify's lifecycle when the request is plain (bench/status-throughput).
  answerEarly(app, '/api/status', status);
}
