/**
 * Files, mounts and search routes (seed 000 §4.2): thin adapters over the files service.
 */
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import type { FilesService } from './service.js';

const wildcard = (params: unknown): string => {
  const p = (params as Record<string, string | undefined>)['*'];
  if (!p) throw badRequest('name a file after the route, e.g. /api/files/notes/todo.md');
  return p;
};

const silent = () => undefined;

export function filesRoutes(app: FastifyInstance, files: FilesService): void {
  app.get('/api/files', async () => files.tree());

  app.get('/api/files/*', async (req, reply) => {
    const virtual = wildcard(req.params);
    const raw = (req.query as Record<string, string | undefined>).raw;
    if (raw === '1' || raw === 'true') {
      const { bytes } = await files.readBytes(virtual);
      return reply.type('application/octet-stream').send(bytes);
    }
    return files.readText(virtual, silent); // a client opening a file changes nothing: no event
  });

  app.put('/api/files/*', async (req) => {
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
    bin.put('/api/files-bin/*', { bodyLimit: LIMITS.binaryUploadBytes }, async (req) => {
      const body = req.body;
      const data = Buffer.isBuffer(body) ? body : body === undefined || body === null ? Buffer.alloc(0) : Buffer.from(String(body));
      return files.writeBytes(wildcard(req.params), data);
    });
  });

  app.post('/api/files-op', async (req) => files.op((req.body ?? {}) as Record<string, unknown>));

  app.get('/api/mounts', async () => ({ mounts: files.mounts() }));
  app.post('/api/mounts', async (req, reply) => {
    const mount = await files.addMount((req.body ?? {}) as Record<string, unknown>);
    return reply.code(201).send({ ok: true, mount, mounts: files.mounts() });
  });
  app.delete('/api/mounts/:name', async (req) => {
    const mount = await files.removeMount((req.params as { name: string }).name);
    return { ok: true, mount, mounts: files.mounts() };
  });

  app.get('/api/search', async (req) => {
    const q = req.query as Record<string, string | undefined>;
    const on = (v: string | undefined) => v === '1' || v === 'true';
    return files.search(q.q, { caseSensitive: on(q.case), regex: on(q.regex) });
  });
}
