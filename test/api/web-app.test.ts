/**
 * How the engine serves the web workbench (src/http/web-app.ts): GET / by content negotiation, the
 * app shell for a browser's GET of a client route, hashed assets cached for a year with gzip and
 * ETags, and the phone shell at /m/ served to a LAN peer without the token while the data stays
 * behind it.
 */
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import os from 'node:os';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { webAppBuilt } from '../support/browser.js';
import { rawGet } from '../security/raw-socket.js';

let t: TestEngine;
before(async () => {
  webAppBuilt();
  t = await startTestEngine({ bind: '0.0.0.0' });
});
after(() => t.close());

/** A GET with the raw bytes of the answer (fetch would gunzip them). */
function getRaw(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${t.url}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

test('GET / answers the workbench to a browser and the JSON description to every other client', async () => {
  const page = await getRaw('/', HTML);
  assert.equal(page.status, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  assert.equal(page.headers['cache-control'], 'no-cache');
  assert.match(page.body.toString(), /<div id="app">/);
  const json = await t.api('GET', '/');
  assert.equal(json.status, 200);
  assert.equal(json.body.links.openapi, '/api/openapi.json');
  const curl = await getRaw('/', { accept: '*/*' });
  assert.match(String(curl.headers['content-type']), /json/);
});

test('a browser GET of a client route gets the app shell; an API client gets the usual 404', async () => {
  for (const p of ['/runs/run-123', '/chat/abc', '/files/src/a.ts', '/settings']) {
    const r = await getRaw(p, HTML);
    assert.equal(r.status, 200, p);
    assert.match(r.body.toString(), /<div id="app">/, p);
  }
  const api = await t.api('GET', '/runs/run-123');
  assert.equal(api.status, 404);
  assert.match(api.body.error, /no route for GET \/runs\/run-123/);
  assert.equal((await getRaw('/nothing-here', HTML)).status, 404, 'only the app’s own routes get the shell');
});

test('assets: right content types, a year of immutable caching, gzip when accepted, 304 on a matching ETag', async () => {
  const shell = (await getRaw('/', HTML)).body.toString();
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(shell)![1];
  const style = /href="(\/assets\/[^"]+\.css)"/.exec(shell)![1];
  const js = await getRaw(script, { 'accept-encoding': 'gzip, br' });
  assert.equal(js.status, 200);
  assert.match(String(js.headers['content-type']), /^text\/javascript/);
  assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.equal(js.headers['content-encoding'], 'gzip');
  assert.match(gunzipSync(js.body).toString(), /./);
  const plain = await getRaw(script);
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(gunzipSync(js.body).length, plain.body.length);
  const again = await getRaw(script, { 'if-none-match': String(js.headers.etag) });
  assert.equal(again.status, 304);
  assert.match(String((await getRaw(style)).headers['content-type']), /^text\/css/);
  assert.equal((await getRaw('/assets/nope.js')).status, 404);
});

const lan = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && !a.internal && a.family === 'IPv4')?.address;

test('the phone shell loads for a LAN peer without the token; its data needs the token', { skip: lan ? false : 'no non-loopback IPv4 address' }, async () => {
  const port = t.engine.port;
  const via = { host: lan!, localAddress: lan! };
  const host = `Host: ${lan}:${port}`;
  const shell = await rawGet(port, '/m/', [host], via);
  assert.equal(shell.status, 200);
  assert.match(shell.body, /src\/mobile|\/assets\//);
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(shell.body)![1];
  const deep = await rawGet(port, '/m/chat/s-1', [host, 'Accept: text/html'], via);
  assert.equal(deep.status, 200, 'a reload on a phone route gets the phone shell');
  assert.equal(deep.body, shell.body);
  assert.equal((await rawGet(port, script, [host], via)).status, 200);
  assert.equal((await rawGet(port, '/api/gates', [host], via)).status, 403);
  assert.equal((await rawGet(port, '/api/gates', [host, `X-Engine-Mobile-Token: ${t.engine.mobileToken}`], via)).status, 200);
  // The workbench's own shell and client routes stay behind the guard for such a peer.
  assert.equal((await rawGet(port, '/', [host, 'Accept: text/html'], via)).status, 403);
  assert.equal((await rawGet(port, '/runs/x', [host, 'Accept: text/html'], via)).status, 403);
});
