import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../kernel/errors.js';
import { arr, bool, obj, ok, openObj, params, query, route, str } from '../../http/schemas.js';
import { boardConfigBody, createProps, filterProps, itemSchema, updateProps } from './schemas.js';
import type { WorkService } from './service.js';
import type { Actor, CreateInput, ListFilter, UpdateInput } from './types.js';

const tag = 'work';
const person: Actor = { type: 'person' };
const project = params({ project: 'the board (its folder name under <workspace>/.work/)' });
const item = params({ project: 'the board', key: 'the item key, e.g. ENG-12' });
const boardListing = openObj('a board: {project, config, counts: {<lane>: n}, items: [rows]}');

/** `?archived=1` / `true` / `0` / `false`: the only flag of these query strings. */
function flag(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (/^(1|true|yes)$/i.test(value)) return true;
  if (/^(0|false|no)$/i.test(value)) return false;
  throw badRequest(`archived must be 1 or 0 (true or false); got "${value}"`);
}

/** Work boards over HTTP (seed 000 §4.10): the same core functions as the work tools, attributed to a person. */
export function workRoutes(app: FastifyInstance, work: WorkService): void {
  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/api/work',
    {
      schema: route(tag, 'every board, its config, lane counts and items', {
        querystring: query({ archived: 'archived=1 lists the archive instead of the live items', project: 'only this board', ...filterProps }),
        response: { 200: obj({ boards: arr(boardListing) }, ['boards']) },
      }),
    },
    async (req) => {
      const q = req.query;
      const filter: ListFilter = { project: q.project, status: q.status, kind: q.kind, label: q.label, assignee: q.assignee, archived: flag(q.archived) };
      return { boards: work.list(filter) };
    },
  );
  app.put<{ Params: { project: string }; Querystring: { root?: string }; Body: Record<string, unknown> | undefined }>(
    '/api/work/:project',
    {
      schema: route(tag, 'create or update a board from a config ({} gets the default board); ?root=<mount> places a new board in a mount', {
        params: project,
        querystring: query({ root: 'where a new board lives: "workspace" (default) or a mount name; its .work/ is committed with that code' }),
        body: boardConfigBody,
        response: { 200: ok({ created: bool('true when the board is new'), project: str(), root: str('the root the board lives in'), config: openObj('the board config as stored') }) },
      }),
    },
    async (req) => {
      const { created, config, root } = await work.putBoard(req.params.project, req.body ?? {}, req.query.root);
      return { ok: true, created, project: req.params.project, root, config };
    },
  );
  app.post<{ Params: { project: string }; Body: CreateInput }>(
    '/api/work/:project',
    {
      schema: route(tag, 'create an item in the board\'s first lane (or the lane given)', {
        params: project,
        body: obj(createProps, ['kind', 'title']),
        response: { 201: ok({ key: str('the allocated key'), item: itemSchema }) },
      }),
    },
    async (req, reply) => {
      const { key, item: created } = await work.create(req.params.project, req.body, person);
      return reply.code(201).send({ ok: true, key, item: created });
    },
  );
  app.get<{ Params: { project: string; key: string } }>(
    '/api/work/:project/:key',
    { schema: route(tag, 'one item: frontmatter, body and activity', { params: item, response: { 200: obj({ item: itemSchema }, ['item']) } }) },
    async (req) => ({ item: work.get(req.params.key, req.params.project) }),
  );
  app.put<{ Params: { project: string; key: string }; Body: UpdateInput }>(
    '/api/work/:project/:key',
    {
      schema: route(tag, 'change an item (one attributed activity line)', {
        params: item,
        body: obj(updateProps),
        response: { 200: ok({ change: str('what changed, as the activity line says it'), item: itemSchema }) },
      }),
    },
    async (req) => {
      const { change, item: updated } = await work.update(req.params.key, req.params.project, req.body ?? {}, person);
      return { ok: true, change, item: updated };
    },
  );
  app.post<{ Params: { project: string; key: string }; Body: { text: string } }>(
    '/api/work/:project/:key/comment',
    {
      schema: route(tag, 'append a comment to the item\'s activity log', {
        params: item,
        body: obj({ text: str('the comment') }, ['text']),
        response: { 200: ok({ item: itemSchema }) },
      }),
    },
    async (req) => ({ ok: true, item: await work.comment(req.params.key, req.params.project, req.body.text, person) }),
  );
  app.get<{ Params: { project: string; key: string } }>(
    '/api/work/:project/:key/links',
    {
      schema: route(tag, 'runs, chat sessions and commits attached to an item', {
        params: item,
        response: {
          200: obj(
            {
              key: str(),
              project: str(),
              runs: arr(openObj('a run whose workItem is the key: {runId, status, source, agent?, title?, startedAt}')),
              chats: arr(obj({ sessionId: str() }, ['sessionId'])),
              commits: arr(obj({ sha: str(), subject: str(), root: str('the root (workspace or a mount) of the repository') }, ['sha', 'subject', 'root'])),
            },
            ['key', 'project', 'runs', 'chats', 'commits'],
          ),
        },
      }),
    },
    async (req) => work.links(req.params.key, req.params.project),
  );
}
