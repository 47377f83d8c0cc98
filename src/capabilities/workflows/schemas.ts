/** JSON Schemas shared by the routes and the tools (one definition each). */

/** A workflow document as a route body or a tool argument: validated in depth by validate.ts. */
export const workflowDocumentSchema = {
  type: 'object',
  description: 'A workflow document (formatVersion 2): id, name, description, group, disabled, state, nodes, edges.',
  properties: {
    id: { type: 'string' },
    formatVersion: {},
    group: { type: ['string', 'null'] },
    name: { type: 'string' },
    description: { type: 'string' },
    disabled: { type: 'boolean' },
    state: { type: 'object' },
    nodes: { type: 'array', items: { type: 'object' } },
    edges: { type: 'array', items: { type: 'object' } },
  },
  // Unknown fields reach the validator, which names them in its warnings.
  additionalProperties: true,
} as const;

export const validationResultSchema = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    errors: { type: 'array', items: { type: 'string' } },
    warnings: { type: 'array', items: { type: 'string' } },
    summary: { type: 'object', additionalProperties: true },
  },
  required: ['ok', 'errors', 'warnings'],
} as const;

export const gateResolveSchema = {
  type: 'object',
  properties: {
    runId: { type: 'string', minLength: 1 },
    nodeId: { type: 'string', minLength: 1 },
    approved: { type: 'boolean' },
    note: { type: 'string' },
  },
  required: ['runId', 'nodeId', 'approved'],
  additionalProperties: false,
} as const;

export const cronPreviewSchema = {
  type: 'object',
  properties: { expr: {}, timezone: { type: 'string' } },
  required: ['expr'],
  additionalProperties: false,
} as const;

export const okSchema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } as const;
