/** GET /api/brain (docs/brain.md). */
import type { FastifyInstance } from 'fastify';
import { arr, bool, obj, openObj, query, route, str } from '../../http/schemas.js';
import type { BrainService } from './service.js';

export function brainRoutes(app: FastifyInstance, brain: BrainService): void {
  app.get(
    '/api/brain',
    {
      schema: route('runs', 'the provenance graph derived from the home: runs, sessions, workflows, agents, models, files, checkpoints, work items', {
        querystring: query({
          focus: 'a node id (run:<runId>, session:<id>, agent:<name> ...) or a workspace path',
          depth: 'hops from the focus (default 1, at most 6)',
          types: 'node types to keep, comma-separated',
          since: 'drop activity before this time (epoch ms or ISO date)',
          limit: 'most nodes answered (default 500); truncated says when more exist',
        }),
        response: { 200: obj({ focus: str(), nodes: arr(openObj('a node: {id, type, label, at, data}')), edges: arr(openObj('an edge: {from, to, type, at, runId}')), truncated: bool() }, ['nodes', 'edges', 'truncated']) },
      }),
    },
    async (req) => brain.query(req.query as Record<string, unknown>),
  );
}
