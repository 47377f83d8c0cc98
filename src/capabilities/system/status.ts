import type { FastifyInstance } from 'fastify';
import type { RunLedger } from '../../kernel/runs.js';
import type { SandboxStatus } from '../../sandbox/types.js';
import type { ToolRegistry } from '../../tools/registry.js';

/** What GET /api/status reports; each capability contributes its part through the composition root. */
export interface StatusSources {
  runs: RunLedger;
  tools: ToolRegistry;
  provider: () => { provider: string | null; providers: string[] };
  mcp: () => unknown;
  embeddings: () => boolean;
  /** Whether commands run in the OS sandbox, and why not when they do not. */
  sandbox: () => Promise<SandboxStatus>;
}

export function statusRoutes(app: FastifyInstance, s: StatusSources): void {
  app.get('/api/status', async () => {
    const { provider, providers } = s.provider();
    return {
      ok: true,
      provider,
      providers,
      tools: s.tools.names(),
      mcp: s.mcp(),
      embeddings: s.embeddings(),
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
  });
}
