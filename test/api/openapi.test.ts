/** Issue 10 item 9: GET /api/openapi.json is generated from the route table and covers every route. */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { openApiPath, SOCKETS } from '../../src/http/openapi.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { registeredRoutes } from './routes-table.js';

const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');

let t: TestEngine;
let doc: any;
before(async () => {
  t = await startTestEngine({ files: { watch: false } });
  const r = await t.api('GET', '/api/openapi.json');
  assert.equal(r.status, 200);
  doc = r.body;
});
after(() => t.close());

test('the document is OpenAPI 3.1 with the engine name and version', () => {
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.title, 'Workbench Engine');
  assert.match(doc.info.version, /^\d+\.\d+\.\d+/);
  assert.deepEqual(
    doc['x-websockets'].map((s: { path: string }) => s.path),
    SOCKETS.map((s) => s.path),
  );
});

test('every registered route is in the document with a summary, a tag, and request and response schemas', () => {
  const routes = registeredRoutes(t.engine.app);
  assert.ok(routes.length > 50, `only ${routes.length} routes parsed from the route table`);
  const problems: string[] = [];
  const wildcards = (m: string) => Object.entries<any>(doc.paths).filter(([p, ops]) => p.endsWith('{path}') && ops[m.toLowerCase()]).map(([p]) => p.replace('{path}', '*'));
  for (const m of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH']) {
    const inTable = routes.filter((r) => r.method === m && r.url === '*').length;
    // The printer merges wildcard routes of one verb; at least as many must be documented.
    if (inTable > wildcards(m).length) problems.push(`${m}: ${inTable} wildcard routes are registered, the document has ${wildcards(m).length}`);
  }
  const expanded = routes.flatMap((r) => (r.url === '*' ? [] : [r])).concat(['GET', 'PUT'].flatMap((m) => wildcards(m).map((url) => ({ method: m, url }))));
  for (const { method, url } of expanded) {
    // Routes that share a parametric node under different names print it as `:runId|:workflowId`.
    const op = candidates(url).map((u) => doc.paths[openApiPath(u)]?.[method.toLowerCase()]).find(Boolean);
    const name = `${method} ${url}`;
    if (!op) {
      problems.push(`${name} is missing from the document`);
      continue;
    }
    if (!op.summary) problems.push(`${name} has no summary`);
    if (!op.tags?.length) problems.push(`${name} has no tag`);
    const success = Object.keys(op.responses).filter((s) => /^2\d\d$/.test(s));
    if (!success.length) problems.push(`${name} has no success response`);
    for (const s of success) if (!Object.values(op.responses[s].content ?? {}).some((c: any) => c.schema)) problems.push(`${name} ${s} has no response schema`);
    const documented = candidates(url).find((u) => doc.paths[openApiPath(u)]?.[method.toLowerCase()])!;
    const pathParams = [...documented.matchAll(/:([A-Za-z0-9_]+)|\*$/g)].map((m) => m[1] ?? 'path');
    for (const p of pathParams) if (!op.parameters?.some((x: any) => x.in === 'path' && x.name === p)) problems.push(`${name} does not describe the path parameter ${p}`);
    if ((method === 'POST' || method === 'PUT' || method === 'PATCH') && !op.requestBody) problems.push(`${name} has no request body schema`);
  }
  assert.deepEqual(problems, []);
});

test('every documented operation is a real route (no phantom entries)', () => {
  for (const [p, ops] of Object.entries<any>(doc.paths)) {
    const url = p.replace(/\{path\}$/, '*').replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
    for (const m of Object.keys(ops)) assert.ok(t.engine.app.hasRoute({ method: m.toUpperCase() as 'GET', url }), `${m} ${p}`);
  }
});

test('every schema in the document compiles', () => {
  const ajv = new Ajv({ strict: false });
  for (const [p, ops] of Object.entries<any>(doc.paths)) {
    for (const [m, op] of Object.entries<any>(ops)) {
      const schemas = [
        ...(op.parameters ?? []).map((x: any) => x.schema),
        ...Object.values<any>(op.requestBody?.content ?? {}).map((c) => c.schema),
        ...Object.values<any>(op.responses)
          .flatMap((r) => Object.values<any>(r.content ?? {}))
          .map((c) => c.schema)
          .filter((s) => !s.$ref),
      ];
      for (const s of schemas) assert.doesNotThrow(() => ajv.compile(s), `${m} ${p}`);
    }
  }
});

test('the answers of the parameter-free GET routes match their documented schemas', async () => {
  const ajv = new Ajv({ strict: false });
  let checked = 0;
  for (const [p, ops] of Object.entries<any>(doc.paths)) {
    const op = ops.get;
    if (!op || p.includes('{')) continue;
    const r = await t.api('GET', p);
    if (r.status !== 200) continue; // e.g. /api/search without ?q
    const schema = op.responses['200'].content['application/json']?.schema;
    if (!schema) continue;
    const validate = ajv.compile(schema);
    assert.ok(validate(r.body), `GET ${p}: ${ajv.errorsText(validate.errors)}`);
    checked++;
  }
  assert.ok(checked >= 20, `only ${checked} routes checked`);
});

test('the same schema validates the request: a wrong type is 400 with one sentence naming the field and the shape to send', async () => {
  const r = await t.api('PUT', '/api/chat/queue', { sessionId: 's1', id: 5, message: 'x' });
  assert.equal(r.status, 400);
  assert.equal(r.body.error, 'id must be a string; send a JSON object {"sessionId": string, "id": string, "message": string}');
  const missing = await t.api('POST', '/api/secrets', { name: 'x' });
  assert.equal(missing.status, 400);
  assert.match(missing.body.error, /^value is required; send a JSON object \{"name": string, "value": string\}$/);
  const extra = await t.api('PUT', '/api/skills/demo', { description: 'd', body: 'b', color: 'red' });
  assert.equal(extra.status, 400);
  assert.equal(extra.body.error, 'unknown field "color"; this route takes "description", "body"');
  const query = await t.api('GET', '/api/report?colour=1');
  assert.equal(query.status, 400);
  assert.equal(query.body.error, 'unknown query parameter "colour"; this route takes "from", "to"');
});

test('bodies that lived only in code are described: permissions rule, agent, skill, chat queue', () => {
  const body = (p: string, m: string) => doc.paths[p][m].requestBody.content['application/json'].schema;
  assert.deepEqual(body('/api/permissions/rule', 'post').required, ['key', 'decision']);
  assert.ok(body('/api/agents/{name}', 'put').properties.tools);
  assert.deepEqual(body('/api/skills/{name}', 'put').required, ['description', 'body']);
  assert.deepEqual(body('/api/chat/queue', 'put').required, ['sessionId', 'id', 'message']);
  const del = doc.paths['/api/chat/queue'].delete.parameters.map((x: any) => x.name);
  assert.deepEqual(del.sort(), ['id', 'session', 'sessionId']);
  assert.equal(doc.paths['/api/files-bin/{path}'].put.requestBody.content['application/octet-stream'].schema.format, 'binary');
});

/** Every spelling of a printed URL whose segments may list alternatives (`:runId|:workflowId`). */
function candidates(url: string): string[] {
  const m = /:[A-Za-z0-9_]+(?:\|:[A-Za-z0-9_]+)+/.exec(url);
  if (!m) return [url];
  return m[0].split('|').flatMap((alt) => candidates(url.slice(0, m.index) + alt + url.slice(m.index + m[0].length)));
}
