/**
 * GET / and GET /api: what this server is and where to go next (a person who opens the address in a
 * browser or curls it should not meet a 404). GET /api/docs serves the README and docs/ pages that
 * ship with the engine, so the links work offline.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { arr, obj, params, route, str } from '../../http/schemas.js';
import { notFound } from '../../kernel/errors.js';
import { ENGINE_NAME, engineVersion, packageRoot } from '../../kernel/version.js';

const answer = obj(
  {
    name: str(),
    version: str(),
    links: obj(
      {
        openapi: str('the OpenAPI 3.1 document of every route'),
        events: str('the WebSocket of engine events'),
        status: str('the engine at a glance'),
        docs: str('the README and the docs pages'),
      },
      ['openapi', 'events', 'status', 'docs'],
    ),
  },
  ['name', 'version', 'links'],
);

/** The pages: README plus every docs/*.md, by name without `.md`. */
async function pages(): Promise<Map<string, string>> {
  const root = packageRoot();
  const out = new Map<string, string>([['README', path.join(root, 'README.md')]]);
  const names = await fs.readdir(path.join(root, 'docs')).catch(() => [] as string[]);
  for (const n of names.sort()) if (n.endsWith('.md')) out.set(n.slice(0, -3), path.join(root, 'docs', n));
  return out;
}

/**
 * `shell` answers a browser (Accept includes text/html) with the web workbench (src/http/web-app.ts);
 * every other client gets the JSON below.
 */
export function aboutRoutes(app: FastifyInstance, shell?: { wantsHtml(req: FastifyRequest): boolean; sendShell(req: FastifyRequest, reply: FastifyReply): FastifyReply }): void {
  const about = () => ({
    name: ENGINE_NAME,
    version: engineVersion(),
    links: { openapi: '/api/openapi.json', events: '/events', status: '/api/status', docs: '/api/docs' },
  });
  const schema = route('system', 'the engine name, version and where to start', { response: { 200: answer } });
  app.get('/', { schema: { ...schema, summary: 'the engine name, version and where to start; a browser (Accept: text/html) gets the web workbench' } }, async (req, reply) =>
    shell?.wantsHtml(req) ? shell.sendShell(req, reply) : about(),
  );
  app.get('/api', { schema: { ...schema, summary: 'the engine name, version and where to start (same as /)' } }, async () => about());

  app.get(
    '/api/docs',
    { schema: route('system', 'the documentation pages that ship with the engine', { response: { 200: obj({ pages: arr(obj({ name: str(), url: str() }, ['name', 'url'])) }, ['pages']) } }) },
    async () => ({ pages: [...(await pages()).keys()].map((name) => ({ name, url: `/api/docs/${name}` })) }),
  );
  app.get<{ Params: { name: string } }>(
    '/api/docs/:name',
    { schema: route('system', 'one documentation page as markdown', { params: params({ name: 'README or a docs page name, e.g. api' }), response: { 200: str('markdown', { contentMediaType: 'text/markdown' }) } }) },
    async (req, reply) => {
      const file = (await pages()).get(req.params.name);
      if (!file) throw notFound(`no documentation page "${req.params.name}"; GET /api/docs lists them`);
      return reply.type('text/markdown; charset=utf-8').send(await fs.readFile(file, 'utf8'));
    },
  );
}
