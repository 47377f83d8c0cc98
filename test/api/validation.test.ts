/** The validation rules of docs/api.md on a bare app: what a new route of another capability gets. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Guard } from '../../src/http/guard.js';
import { int, obj, ok, query, route, str } from '../../src/http/schemas.js';
import { createServer } from '../../src/http/server.js';

let app: FastifyInstance;
let url: string;
before(async () => {
  app = createServer({ guard: new Guard(() => 0, () => 'token'), log: () => undefined });
  app.get(
    '/api/x/items',
    { schema: route('x', 'list', { querystring: query({ limit: int('page size', { minimum: 1, default: 20 }), q: 'text' }), response: { 200: obj({ limit: int(), q: str() }, ['limit']) } }) },
    async (req) => req.query,
  );
  app.post(
    '/api/x/items',
    { schema: route('x', 'add', { body: obj({ name: str(), size: int('size', { default: 1 }) }), response: { 200: ok() } }) },
    async (req) => ({ ok: true, body: req.body ?? null }),
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
after(() => app.close());

const post = (body: string | undefined) => fetch(`${url}/api/x/items`, { method: 'POST', headers: body === undefined ? {} : { 'content-type': 'application/json' }, body });

test('query strings are text: an integer parameter is read from "5", defaults fill what was not sent', async () => {
  assert.deepEqual(await (await fetch(`${url}/api/x/items?limit=5`)).json(), { limit: 5 });
  assert.deepEqual(await (await fetch(`${url}/api/x/items`)).json(), { limit: 20 });
  const bad = await fetch(`${url}/api/x/items?limit=many`);
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).error, 'the query parameter limit must be an integer; send query parameters limit=integer&q=string');
});

test('bodies are not coerced, defaults apply, and a body not sent stays unsent unless a default fills it', async () => {
  const typed = await post('{"name": 5}');
  assert.equal(typed.status, 400);
  assert.match((await typed.json()).error, /^name must be a string; send a JSON object \{"name"\?: string, "size"\?: integer\}$/);
  assert.deepEqual((await (await post('{"name": "a"}')).json()).body, { name: 'a', size: 1 });
  assert.deepEqual((await (await post(undefined)).json()).body, { size: 1 });
});
