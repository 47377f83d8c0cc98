/** The git routes (seed 000 §4.3) and checkpoint revert (§4.4): thin, each with its schema. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type RouteSchema, type Schema, obj, route } from '../../http/schemas.js';
import { LIMITS } from '../../kernel/limits.js';
import type { GitService } from './service.js';

type Props = Record<string, Schema>;
const arrayOf = (items: Schema) => ({ type: 'array', items });

/** One git route's schema through the house `route()`: closed querystring or body and its 200 answer. */
function doc(summary: string, parts: { query?: Props; queryRequired?: string[]; body?: Props; bodyRequired?: string[]; ok: Props }, tag = 'git'): RouteSchema {
  return route(tag, summary, {
    ...(parts.query ? { querystring: obj(parts.query, parts.queryRequired) } : {}),
    ...(parts.body ? { body: obj(parts.body, parts.bodyRequired) } : {}),
    response: { 200: obj(parts.ok) },
  });
}

const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;
const nullableStr = { type: ['string', 'null'] } as const;
const root = { type: 'string', minLength: 1, maxLength: 4096, description: 'a mount name, `workspace` (the default), or a nested repository folder from GET /api/git/repos' } as const;
const runId = { type: 'string', pattern: '^run-\\d+-\\d+$' } as const;
const sha = { type: 'string', pattern: '^[0-9a-f]{7,64}$' } as const;
const mode = { type: 'string', enum: ['auto', 'staged', 'unstaged', 'head', 'run', 'checkpoint'] } as const;
const path = { type: 'string', minLength: 1 } as const;

const entries = arrayOf(obj({ path: str, oldPath: str, status: str, conflict: str, submodule: bool }));
const diffProps = {
  diff: str,
  mode: str,
  root: str,
  roots: arrayOf(str),
  binary: arrayOf(str),
  omitted: arrayOf(obj({ path: str, added: { type: ['integer', 'null'] }, deleted: { type: ['integer', 'null'] } })),
  note: str,
};
const fileDiff = obj({ path: str, ...diffProps });
const checkpoint = obj({ sha: str, root: str, rootPath: str, runId: str, nodeId: str, reason: str, ts: { type: 'integer' } });

/** A POST whose body is all optional may come without one (a bare `curl -X POST`). */
const emptyBodyIsObject = (req: FastifyRequest, _reply: unknown, done: () => void) => {
  req.body ??= {};
  done();
};

export function gitRoutes(app: FastifyInstance, git: GitService): void {
  app.get<{ Querystring: { root?: string } }>(
    '/api/git/status',
    {
      schema: doc('Working-tree status of one root: branch, upstream, ahead/behind, staged, unstaged, untracked and conflicted entries', {
        query: { root },
        ok: {
          root: str,
          branch: nullableStr,
          detached: bool,
          head: nullableStr,
          upstream: nullableStr,
          ahead: { type: 'integer' },
          behind: { type: 'integer' },
          staged: entries,
          unstaged: entries,
          untracked: entries,
          conflicted: entries,
          clean: bool,
          operation: nullableStr,
        },
      }),
    },
    (req) => git.status(req.query.root),
  );

  app.get<{ Querystring: { root?: string } }>(
    '/api/git/repos',
    {
      schema: doc('Every git repository across the workspace and the mounts (or of one root), nested ones included', {
        query: { root },
        ok: { repos: arrayOf(obj({ root: str, rootName: str, path: str, nested: bool })) },
      }),
    },
    async (req) => ({ repos: await git.repos(req.query.root) }),
  );

  app.get<{ Querystring: { root?: string } }>(
    '/api/git/tree-status',
    {
      schema: doc('One map of virtual path to status letter for the whole explorer, every root and nested repository', {
        query: { root },
        ok: { entries: { type: 'object', additionalProperties: str }, repos: arrayOf(str), truncated: bool },
      }),
    },
    (req) => git.treeStatus(req.query.root),
  );

  app.get<{ Querystring: { root?: string; staged?: string } }>(
    '/api/git/diff',
    {
      schema: doc('Raw unified diff of the work tree against the index, or of the index against HEAD with staged=1', {
        query: { root, staged: { type: 'string', enum: ['0', '1', 'true', 'false'] } },
        ok: diffProps,
      }),
    },
    (req) => git.diff(req.query.root, req.query.staged === '1' || req.query.staged === 'true'),
  );

  app.get<{ Querystring: { root?: string; mode?: string; runId?: string; sha?: string } }>(
    '/api/git/contextual-diff',
    {
      schema: doc('The diff for the review surface: auto (staged, else everything incl. untracked), a run since its first checkpoint, or a checkpoint to now', {
        query: { root, mode, runId, sha },
        ok: diffProps,
      }),
    },
    (req) => git.contextualDiff(req.query),
  );

  app.get<{ Querystring: { root?: string; path: string; oldPath?: string; mode?: string; runId?: string } }>(
    '/api/git/file-diff',
    {
      schema: doc("One file's diff; oldPath brings in the other side of a rename", {
        query: { root, mode, runId, path, oldPath: path },
        queryRequired: ['path'],
        ok: fileDiff.properties as Props,
      }),
    },
    (req) => git.fileDiff(req.query),
  );

  app.get<{ Querystring: { root?: string; paths: string[]; mode?: string; runId?: string } }>(
    '/api/git/files-diff',
    {
      schema: doc("Several files' diffs; paths= is repeated once per file (never comma-split)", {
        query: { root, mode, runId, paths: { type: 'array', minItems: 1, maxItems: LIMITS.gitFilesDiffPaths, items: path } },
        queryRequired: ['paths'],
        ok: { files: arrayOf(fileDiff) },
      }),
    },
    (req) => git.filesDiff(req.query),
  );

  app.post<{ Body: { message: string; root?: string } }>(
    '/api/git/commit',
    {
      schema: doc('Commits the staged changes, or every change when nothing is staged', {
        body: { message: { type: 'string', minLength: 1 }, root },
        bodyRequired: ['message'],
        ok: { sha: str, committed: { type: 'string', enum: ['staged', 'all'] } },
      }),
    },
    (req) => git.commit(req.body.root, req.body.message),
  );

  app.post<{ Body: { root?: string } | undefined }>(
    '/api/git/suggest-message',
    { preValidation: emptyBodyIsObject, schema: doc('A commit message for the staged changes (or all changes) written by the configured model', { body: { root }, ok: { message: str } }) },
    (req) => git.suggestMessage(req.body?.root),
  );

  app.post<{ Body: { root?: string } | undefined }>(
    '/api/git/review',
    { preValidation: emptyBodyIsObject, schema: doc('A review of the staged changes (or all changes) written by the configured model', { body: { root }, ok: { review: str } }) },
    (req) => git.review(req.body?.root),
  );

  app.get<{ Querystring: { runId?: string } }>(
    '/api/git/checkpoints',
    { schema: doc('The kept checkpoints, oldest first, optionally of one run', { query: { runId }, ok: { checkpoints: arrayOf(checkpoint) } }, 'checkpoints') },
    async (req) => ({ checkpoints: git.checkpoints.list({ runId: req.query.runId }) }),
  );

  app.post<{ Body: { sha: string } }>(
    '/api/checkpoints/revert',
    {
      schema: doc(
        'Rolls a root back to a checkpoint, snapshotting the current state first so the revert can be undone',
        {
          body: { sha },
          bodyRequired: ['sha'],
          ok: { ok: bool, root: str, sha: str, undo: str, changed: arrayOf(obj({ path: str, change: { type: 'string', enum: ['restored', 'removed', 'added'] } })) },
        },
        'checkpoints',
      ),
    },
    (req) => git.checkpoints.revert(req.body.sha),
  );

  app.post<{ Body: { runId: string } }>(
    '/api/checkpoints/revert-run',
    {
      schema: doc(
        'Reverts a whole run: every root it changed goes back to its checkpoint from before the run\'s first change, each with its own undo checkpoint',
        {
          body: { runId },
          bodyRequired: ['runId'],
          ok: {
            ok: bool,
            runId: str,
            roots: arrayOf(obj({ root: str, sha: str, undo: str, changed: arrayOf(obj({ path: str, change: { type: 'string', enum: ['restored', 'removed', 'added'] } })) })),
          },
        },
        'checkpoints',
      ),
    },
    (req) => git.checkpoints.revertRun(req.body.runId),
  );
}
