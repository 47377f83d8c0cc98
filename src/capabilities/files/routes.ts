/**
 * Files, mounts and search routes (seed 000 §4.2): thin adapters over the files service.
 */
import type { FastifyInstance } from 'fastify';
import { arr, bool, int, obj, ok, oneOf, openObj, params, query, route, str, wildcardParams } from '../../http/schemas.js';
import { badRequest } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import type { FilesService } from './service.js';

const wildcard = (params: unknown): string => {
  const p = (params as Record<string, string | undefined>)['*'];
  if (!p) throw badRequest('name a file after the route, e.g. /api/files/notes/todo.md');
  return p;
};

const silent = () => undefined;

const tag = 'files';
const mount = obj({ name: str(), path: str() }, ['name', 'path']);
const mountsList = arr(mount);
const filePath = wildcardParams('a virtual path: workspace-relative, or <mount name>/...');
const flag = oneOf('1', 'true', '0', 'false');

export function filesRoutes(app: FastifyInstance, files: FilesService): void {
  app.get(
    '/api/files',
    {
      schema: route(tag, 'every file of the workspace and the mounts (paths and sizes)', {
        response: { 200: obj({ mounts: mountsList, files: arr(obj({ path: str(), size: int() }, ['path', 'size'])), warnings: arr(str()) }, ['mounts', 'files']) },
      }),
    },
    async () => files.tree(),
  );

  const readSchema = route(tag, 'read a text file (or a folder listing); ?raw=1 answers the bytes', {
    params: filePath,
    querystring: query({ raw: flag }),
    response: { 200: openObj('`{path, content}` for a file, `{path, entries}` for a folder; raw bytes with ?raw=1', { path: str(), content: str(), entries: arr(obj({ name: str(), dir: bool() }, ['name', 'dir'])) }) },
  });
  app.get('/api/files/*', { schema: readSchema }, async (req, reply) => {
    const virtual = wildcard(req.params);
    const raw = (req.query as Record<string, string | undefined>).raw;
    if (raw === '1' || raw === 'true') {
      const { bytes } = await files.readBytes(virtual);
      return reply.type('application/octet-stream').send(bytes);
    }
    return files.readText(virtual, silent); // a client opening a file changes nothing: no event
  });

  const writeSchema = route(tag, 'write a text file (created with its folders, replaced atomically)', {
    params: filePath,
    body: obj({ content: str('the whole file text') }, ['content']),
    response: { 200: ok({ path: str(), bytes: int() }) },
  });
  app.put('/api/files/*', { schema: writeSchema }, async (req) => {
    const body = req.body as { content?: unknown } | undefined;
    if (!body || typeof body !== 'object' || typeof body.content !== 'string') {
      throw badRequest('send a JSON body {"content": "<the whole file text>"}');
    }
    return files.writeText(wildcard(req.params), body.content);
  });

  // Raw bytes of any content type, up to the binary cap, in a context of its own so a JSON upload
  // is stored as the bytes sent rather than parsed.
  app.register(async (bin) => {
    bin.removeAllContentTypeParsers();
    bin.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: LIMITS.binaryUploadBytes }, (_req, body, done) => done(null, body));
    const binSchema = route(tag, 'write a file from the raw request bytes (any content type, up to 50 MB)', {
      params: filePath,
      consumes: ['application/octet-stream'],
      response: { 200: ok({ path: str(), bytes: int() }) },
    });
    bin.put('/api/files-bin/*', { bodyLimit: LIMITS.binaryUploadBytes, schema: binSchema }, async (req) => {
      const body = req.body;
      const data = Buffer.isBuffer(body) ? body : body === undefined || body === null ? Buffer.alloc(0) : Buffer.from(String(body));
      return files.writeBytes(wildcard(req.params), data);
    });
  });

  app.post(
    '/api/files-op',
    {
      schema: route(tag, 'delete, rename, copy, mkdir or reveal (open in the file manager) a path', {
        body: obj({ op: oneOf('delete', 'rename', 'copy', 'mkdir', 'reveal'), path: str('a virtual path'), to: str('the new virtual path (rename, copy)') }, ['op', 'path']),
        response: { 200: obj({ ok: bool('false when reveal found no file manager'), op: str(), path: str(), to: str(), error: str() }, ['ok', 'op', 'path']) },
      }),
    },
    async (req) => files.op((req.body ?? {}) as Record<string, unknown>),
  );

  app.get('/api/mounts', { schema: route(tag, 'the mounted folders', { response: { 200: obj({ mounts: mountsList }, ['mounts']) } }) }, async () => ({ mounts: files.mounts() }));
  const addSchema = route(tag, 'mount a folder of this machine under a name', {
    body: obj({ path: str('an absolute folder path'), name: str('the mount name (default: the folder name)') }, ['path']),
    response: { 201: ok({ mount, mounts: mountsList }) },
  });
  app.post('/api/mounts', { schema: addSchema }, async (req, reply) => {
    const mount = await files.addMount((req.body ?? {}) as Record<string, unknown>);
    return reply.code(201).send({ ok: true, mount, mounts: files.mounts() });
  });
  const removeSchema = route(tag, 'unmount a folder (the folder itself is untouched)', { params: params({ name: 'the mount name' }), response: { 200: ok({ mount, mounts: mountsList }) } });
  app.delete('/api/mounts/:name', { schema: removeSchema }, async (req) => {
    const mount = await files.removeMount((req.params as { name: string }).name);
    return { ok: true, mount, mounts: files.mounts() };
  });

  const searchSchema = route(tag, 'search text in every file (ripgrep when present)', {
    querystring: query({ q: 'the text or pattern', case: flag, regex: flag }),
    response: {
      200: obj(
        { results: arr(obj({ path: str(), matches: arr(openObj('a line: {line, text, subs}')) }, ['path', 'matches'], { open: true })), truncated: bool() },
        ['results', 'truncated'],
        { open: true },
      ),
    },
  });
  app.get('/api/search', { schema: searchSchema }, async (req) => {
    const q = req.query as Record<string, string | undefined>;
    const on = (v: string | undefined) => v === '1' || v === 'true';
    return files.search(q.q, { caseSensitive: on(q.case), regex: on(q.regex) });
  });
}
