/** The git routes (seed 000 §4.3) and checkpoint revert (§4.4): thin, each with its schema. */
import type { FastifyInstance, FastifySchema } from 'fastify';
import { LIMITS } from '../../kernel/limits.js';
import type { GitService } from './service.js';

/** A route schema with its OpenAPI summary and tags (Fastify's own type does not know those two keys). */
const doc = (schema: FastifySchema & { summary: string; tags: string[] }): FastifySchema => schema;

const str = { type: 'string' } as const;
const root = { type: 'string', minLength: 1, maxLength: 4096, description: 'a mount name, `workspace` (the default), or a nested repository folder from GET /api/git/repos' } as const;
const runId = { type: 'string', pattern: '^run-\\d+-\\d+$' } as const;
const sha = { type: 'string', pattern: '^[0-9a-f]{7,64}$' } as const;
const modes = ['auto', 'staged', 'unstaged', 'head', 'run', 'checkpoint'];
const tags = ['git'];

const entry = {
  type: 'object',
  additionalProperties: false,
  properties: { path: str, oldPath: str, status: str, conflict: str, submodule: { type: 'boolean' } },
} as const;
const entries = { type: 'array', items: entry } as const;
const nullableStr = { type: ['string', 'null'] } as const;

const diffProps = {
  diff: str,
  mode: str,
  root: str,
  roots: { type: 'array', items: str },
  binary: { type: 'array', items: str },
  omitted: {
    type: 'array',
    items: { type: 'object', additionalProperties: false, properties: { path: str, added: { type: ['integer', 'null'] }, deleted: { type: ['integer', 'null'] } } },
  },
  note: str,
} as const;
const diffAnswer = { type: 'object', additionalProperties: false, properties: diffProps } as const;
const fileDiffAnswer = { type: 'object', additionalProperties: false, properties: { path: str, ...diffProps } } as const;

const diffQuery = {
  root,
  mode: { type: 'string', enum: modes },
  runId,
  sha,
} as const;

export function gitRoutes(app: FastifyInstance, git: GitService): void {
  app.get<{ Querystring: { root?: string } }>(
    '/api/git/status',
    {
      schema: doc({
        summary: 'Working-tree status of one root: branch, upstream, ahead/behind, staged, unstaged, untracked and conflicted entries',
        tags,
        querystring: { type: 'object', additionalProperties: false, properties: { root } },
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            properties: {
              root: str,
              branch: nullableStr,
              detached: { type: 'boolean' },
              head: nullableStr,
              upstream: nullableStr,
              ahead: { type: 'integer' },
              behind: { type: 'integer' },
              staged: entries,
              unstaged: entries,
              untracked: entries,
              conflicted: entries,
              clean: { type: 'boolean' },
              operation: nullableStr,
            },
          },
        },
      }),
    },
    (req) => git.status(req.query.root),
  );

  app.get(
    '/api/git/repos',
    {
      schema: doc({
        summary: 'Every git repository across the workspace and the mounts, nested ones included',
        tags,
        querystring: { type: 'object', additionalProperties: false, properties: { root } },
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            properties: {
              repos: {
                type: 'array',
                items: { type: 'object', additionalProperties: false, properties: { root: str, rootName: str, path: str, nested: { type: 'boolean' } } },
              },
            },
          },
        },
      }),
    },
    async () => ({ repos: await git.repos() }),
  );

  app.get<{ Querystring: { root?: string } }>(
    '/api/git/tree-status',
    {
      schema: doc({
        summary: 'One map of virtual path to status letter for the whole explorer, every root and nested repository',
        tags,
        querystring: { type: 'object', additionalProperties: false, properties: { root } },
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            properties: { entries: { type: 'object', additionalProperties: str }, repos: { type: 'array', items: str }, truncated: { type: 'boolean' } },
          },
        },
      }),
    },
    (req) => git.treeStatus(req.query.root),
  );

  app.get<{ Querystring: { root?: string; staged?: string } }>(
    '/api/git/diff',
    {
      schema: doc({
        summary: 'Raw unified diff of the work tree against the index, or of the index against HEAD with staged=1',
        tags,
        querystring: { type: 'object', additionalProperties: false, properties: { root, staged: { type: 'string', enum: ['0', '1', 'true', 'false'] } } },
        response: { 200: diffAnswer },
      }),
    },
    (req) => git.diff(req.query.root, req.query.staged === '1' || req.query.staged === 'true'),
  );

  app.get<{ Querystring: { root?: string; mode?: string; runId?: string; sha?: string } }>(
    '/api/git/contextual-diff',
    {
      schema: doc({
        summary: 'The diff for the review surface: auto (staged, else everything incl. untracked), a run since its first checkpoint, or a checkpoint to now',
        tags,
        querystring: { type: 'object', additionalProperties: false, properties: diffQuery },
        response: { 200: diffAnswer },
      }),
    },
    (req) => git.contextualDiff(req.query),
  );

  app.get<{ Querystring: { root?: string; path: string; oldPath?: string; mode?: string; runId?: string } }>(
    '/api/git/file-diff',
    {
      schema: doc({
        summary: "One file's diff; oldPath brings in the other side of a rename",
        tags,
        querystring: { type: 'object', additionalProperties: false, required: ['path'], properties: { ...diffQuery, path: { type: 'string', minLength: 1 }, oldPath: { type: 'string', minLength: 1 } } },
        response: { 200: fileDiffAnswer },
      }),
    },
    (req) => git.fileDiff(req.query),
  );

  app.get<{ Querystring: { root?: string; paths: string[]; mode?: string; runId?: string } }>(
    '/api/git/files-diff',
    {
      schema: doc({
        summary: "Several files' diffs; paths= is repeated once per file (never comma-split)",
        tags,
        querystring: {
          type: 'object',
          additionalProperties: false,
          required: ['paths'],
          properties: { ...diffQuery, paths: { type: 'array', minItems: 1, maxItems: LIMITS.gitFilesDiffPaths, items: { type: 'string', minLength: 1 } } },
        },
        response: { 200: { type: 'object', additionalProperties: false, properties: { files: { type: 'array', items: fileDiffAnswer } } } },
      }),
    },
    (req) => git.filesDiff(req.query),
  );

  const rootBody = { type: 'object', additionalProperties: false, properties: { root } } as const;

  app.post<{ Body: { message: string; root?: string } }>(
    '/api/git/commit',
    {
      schema: doc({
        summary: 'Commits the staged changes, or every change when nothing is staged',
        tags,
        body: { type: 'object', additionalProperties: false, required: ['message'], properties: { message: { type: 'string', minLength: 1 }, root } },
        response: { 200: { type: 'object', additionalProperties: false, properties: { sha: str, committed: { type: 'string', enum: ['staged', 'all'] } } } },
      }),
    },
    (req) => git.commit(req.body.root, req.body.message),
  );

  app.post<{ Body: { root?: string } | undefined }>(
    '/api/git/suggest-message',
    {
      schema: doc({
        summary: 'A commit message for the staged changes (or all changes) written by the configured model',
        tags,
        body: rootBody,
        response: { 200: { type: 'object', additionalProperties: false, properties: { message: str } } },
      }),
    },
    (req) => git.suggestMessage(req.body?.root),
  );

  app.post<{ Body: { root?: string } | undefined }>(
    '/api/git/review',
    {
      schema: doc({
        summary: 'A review of the staged changes (or all changes) written by the configured model',
        tags,
        body: rootBody,
        response: { 200: { type: 'object', additionalProperties: false, properties: { review: str } } },
      }),
    },
    (req) => git.review(req.body?.root),
  );

  const checkpoint = {
    type: 'object',
    additionalProperties: false,
    properties: { sha: str, root: str, rootPath: str, runId: str, nodeId: str, reason: str, ts: { type: 'integer' } },
  } as const;

  app.get<{ Querystring: { runId?: string } }>(
    '/api/git/checkpoints',
    {
      schema: doc({
        summary: 'The kept checkpoints, oldest first, optionally of one run',
        tags: ['checkpoints'],
        querystring: { type: 'object', additionalProperties: false, properties: { runId } },
        response: { 200: { type: 'object', additionalProperties: false, properties: { checkpoints: { type: 'array', items: checkpoint } } } },
      }),
    },
    async (req) => ({ checkpoints: git.checkpoints.list({ runId: req.query.runId }) }),
  );

  app.post<{ Body: { sha: string } }>(
    '/api/checkpoints/revert',
    {
      schema: doc({
        summary: 'Rolls a root back to a checkpoint, snapshotting the current state first so the revert can be undone',
        tags: ['checkpoints'],
        body: { type: 'object', additionalProperties: false, required: ['sha'], properties: { sha } },
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            properties: {
              ok: { type: 'boolean' },
              root: str,
              sha: str,
              undo: str,
              changed: {
                type: 'array',
                items: { type: 'object', additionalProperties: false, properties: { path: str, change: { type: 'string', enum: ['restored', 'removed', 'added'] } } },
              },
            },
          },
        },
      }),
    },
    (req) => git.checkpoints.revert(req.body.sha),
  );
}
