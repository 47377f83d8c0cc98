/**
 * Vault routes (seed 000 §4.9): thin adapters over the vaults service, each declaring its schemas
 * (they validate the request and feed the OpenAPI document).
 */
import type { FastifyInstance } from 'fastify';
import { route } from '../../http/schemas.js';
import { LIMITS } from '../../kernel/limits.js';
import { schemaJsonSchema } from './schema.js';
import type { VaultsService } from './vaults.js';

const tag = 'vaults';
const vaultParams = { type: 'object', additionalProperties: false, properties: { vault: { type: 'string' } }, required: ['vault'] } as const;
const pathQuery = { type: 'object', additionalProperties: false, properties: { path: { type: 'string', minLength: 1 } }, required: ['path'] } as const;
const anyObject = { type: 'object', additionalProperties: true } as const;
const noteAnswer = {
  type: 'object',
  additionalProperties: true,
  properties: { ok: { type: 'boolean' }, note: { type: 'string' }, from: { type: 'string' }, meta: anyObject },
} as const;
const summary = {
  type: 'object',
  additionalProperties: true,
  properties: { name: { type: 'string' }, path: { type: 'string' }, git: { type: 'boolean' }, notes: { type: 'number' }, inbox: { type: 'number' } },
} as const;

type P = { vault: string };

export function vaultsRoutes(app: FastifyInstance, vaults: VaultsService): void {
  app.get('/api/vaults', { schema: route(tag, 'Every mounted vault with its note and inbox counts', { response: { 200: { type: 'array', items: summary } } }) }, async () => vaults.list());

  app.post(
    '/api/vaults',
    {
      schema: route(tag, 'Make a folder a vault and mount it (a folder holding vault.json is adopted as is)', {
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: LIMITS.mountNameChars },
            path: { type: 'string', minLength: 1 },
            schema: schemaJsonSchema,
            git: { type: 'boolean' },
          },
          required: ['name', 'path'],
        },
        response: { 201: { type: 'object', additionalProperties: true, properties: { ok: { type: 'boolean' }, adopted: { type: 'boolean' }, vault: summary, schema: anyObject } } },
      }),
    },
    async (req, reply) => reply.code(201).send(await vaults.create(req.body as { name: string; path: string; schema?: unknown; git?: boolean })),
  );

  app.get(
    '/api/vaults/:vault/index',
    { schema: route(tag, "The vault's schema and every note's metadata", { params: vaultParams, response: { 200: { type: 'object', additionalProperties: true, properties: { vault: { type: 'string' }, schema: anyObject, notes: { type: 'array', items: anyObject }, stats: anyObject } } } }) },
    async (req) => vaults.notes.index((req.params as P).vault),
  );

  app.get(
    '/api/vaults/:vault/note',
    { schema: route(tag, 'One note: its text and metadata', { params: vaultParams, querystring: pathQuery, response: { 200: { type: 'object', additionalProperties: true, properties: { content: { type: 'string' }, note: { type: 'string' }, meta: anyObject } } } }) },
    async (req) => vaults.notes.get((req.params as P).vault, (req.query as { path: string }).path),
  );

  app.put(
    '/api/vaults/:vault/note',
    {
      schema: route(tag, 'Edit an existing note (404 rather than create)', {
        params: vaultParams,
        querystring: pathQuery,
        body: { type: 'object', additionalProperties: false, properties: { content: { type: 'string' } }, required: ['content'] },
        response: { 200: noteAnswer },
      }),
    },
    async (req) => vaults.notes.put((req.params as P).vault, (req.query as { path: string }).path, (req.body as { content: string }).content),
  );

  app.post(
    '/api/vaults/:vault/notes',
    {
      schema: route(tag, "Create a note filed into its type's folder", {
        params: vaultParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { name: { type: 'string', minLength: 1 }, type: { type: 'string', minLength: 1 }, content: { type: 'string' } },
          required: ['name', 'type', 'content'],
        },
        response: { 201: noteAnswer },
      }),
    },
    async (req, reply) => reply.code(201).send(await vaults.notes.create((req.params as P).vault, req.body as { name: string; type: string; content: string })),
  );

  app.get(
    '/api/vaults/:vault/search',
    {
      schema: route(tag, 'Full-text search over note names, aliases and bodies, ranked, with snippets', {
        params: vaultParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { q: { type: 'string', minLength: 1 }, limit: { type: 'integer', minimum: 1, maximum: 500, default: LIMITS.vaultSearchDefault } },
          required: ['q'],
        },
        response: { 200: { type: 'object', additionalProperties: false, properties: { results: { type: 'array', items: anyObject } } } },
      }),
    },
    async (req) => {
      const q = req.query as { q: string; limit: number };
      return vaults.notes.search((req.params as P).vault, q.q, q.limit);
    },
  );

  app.post(
    '/api/vaults/:vault/refile',
    {
      schema: route(tag, 'Change a note type, name or both; the old name stays an alias (human-only)', {
        params: vaultParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { path: { type: 'string', minLength: 1 }, type: { type: 'string', minLength: 1 }, name: { type: 'string', minLength: 1 } },
          required: ['path'],
        },
        response: { 200: noteAnswer },
      }),
    },
    async (req) => vaults.notes.refile((req.params as P).vault, req.body as { path: string; type?: string; name?: string }),
  );

  app.post(
    '/api/vaults/:vault/inbox/accept',
    {
      schema: route(tag, 'File an inbox note into a folder (default: its type folder)', {
        params: vaultParams,
        body: { type: 'object', additionalProperties: false, properties: { file: { type: 'string', minLength: 1 }, folder: { type: 'string' } }, required: ['file'] },
        response: { 200: noteAnswer },
      }),
    },
    async (req) => vaults.notes.accept((req.params as P).vault, req.body as { file: string; folder?: string }),
  );

  app.post(
    '/api/vaults/:vault/inbox/reject',
    {
      schema: route(tag, 'Delete an inbox note', {
        params: vaultParams,
        body: { type: 'object', additionalProperties: false, properties: { file: { type: 'string', minLength: 1 } }, required: ['file'] },
        response: { 200: { type: 'object', additionalProperties: false, properties: { ok: { type: 'boolean' }, deleted: { type: 'string' } } } },
      }),
    },
    async (req) => vaults.notes.reject((req.params as P).vault, req.body as { file: string }),
  );

  app.post(
    '/api/vaults/:vault/capture',
    {
      schema: route(tag, 'A model turns text into inbox notes (a run; vault.captured reports the notes)', {
        params: vaultParams,
        body: { type: 'object', additionalProperties: false, properties: { text: { type: 'string', minLength: 1 }, agent: { type: 'string', minLength: 1 } }, required: ['text'] },
        response: { 202: { type: 'object', additionalProperties: false, properties: { ok: { type: 'boolean' }, runId: { type: 'string' } } } },
      }),
    },
    async (req, reply) => reply.code(202).send(await vaults.capture((req.params as P).vault, req.body as { text: string; agent?: string })),
  );
}
