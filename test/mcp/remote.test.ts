/** Remote MCP servers: Streamable HTTP with a stored token, secrets in env, and OAuth 2.1 end to end. */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { collectEvents } from '../support/events.js';
import { startOAuthMcpServer, type OAuthMcpServer } from '../support/mcp-oauth-server.js';
import { callTool, connected, EVERYTHING, stdio, waitForMcp } from './support.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

describe('mcp: remote servers and secrets', () => {
  let t: TestEngine;
  let http: ChildProcess;
  let port: number;
  before(async () => {
    t = await startTestEngine();
    port = await freePort();
    http = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      let err = '';
      http.stderr!.on('data', (c) => {
        err += c;
        if (/listening on port/.test(err)) resolve();
      });
      http.once('exit', (code) => reject(new Error(`server-everything exited ${code}: ${err}`)));
    });
  });
  after(async () => {
    http?.kill();
    await t?.close();
  });

  it('connects to a Streamable HTTP server; a newToken becomes a secret and only a reference lands in the map', async () => {
    const put = await t.api('PUT', '/api/mcp', { servers: { remote: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, newToken: 'tok-remote-98765' } } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const view = await waitForMcp(t, connected('remote'), 'the remote server');
    assert.equal(view.status.remote.transport, 'http');
    assert.equal(view.servers.remote.headers.Authorization, 'Bearer {{secret:mcp.remote.token}}');
    assert.doesNotMatch(JSON.stringify(view), /tok-remote-98765/);
    const file = await readFile(path.join(t.home, 'mcp.json'), 'utf8');
    assert.doesNotMatch(file, /tok-remote-98765/);
    assert.ok((await t.api('GET', '/api/secrets')).body.names.includes('mcp.remote.token'));
    const out = await callTool(t, 'remote_echo', { message: 'over http' });
    assert.match(out.text, /over http/);

    const cleared = await t.api('PUT', '/api/mcp', { servers: { remote: { ...view.servers.remote, clearToken: true } } });
    assert.equal(cleared.body.servers.remote.headers, undefined);
    assert.ok(!(await t.api('GET', '/api/secrets')).body.names.includes('mcp.remote.token'));
  });

  it('expands {{secret:...}} in env at connect time and never shows the value (tool output masked)', async () => {
    await t.api('POST', '/api/secrets', { name: 'demo.apikey', value: 'value-of-demo-secret-31337' });
    const put = await t.api('PUT', '/api/mcp', { servers: { envy: { ...stdio(EVERYTHING, 'stdio'), env: { DEMO_KEY: '{{secret:demo.apikey}}' } } } });
    assert.equal(put.status, 200);
    await waitForMcp(t, connected('envy'), 'envy');
    const events = await collectEvents(t.url);
    const out = await t.engine.tools.call({ callId: 'env-1', name: 'envy_get-env', args: {} }, { signal: new AbortController().signal, emit: (k, p) => t.engine.bus.emit(k, p), attended: false });
    assert.match(out.text, /value-of-demo-secret-31337/, 'the server got the secret in its environment');
    const result = await events.waitFor((e) => e.kind === 'tool.result' && e.callId === 'env-1');
    events.close();
    assert.match(String(result.result), /DEMO_KEY/);
    assert.doesNotMatch(JSON.stringify(result), /value-of-demo-secret-31337/, 'the value is masked on its way out (events; model requests pass the same exit mask)');
    assert.doesNotMatch(JSON.stringify((await t.api('GET', '/api/mcp')).body), /value-of-demo-secret-31337/);

    const missing = await t.api('PUT', '/api/mcp', { servers: { envy: { ...stdio(EVERYTHING, 'stdio'), env: { X: '{{secret:not.stored}}' } } } });
    assert.equal(missing.status, 200);
    assert.equal(missing.body.status.envy.state, 'failed');
    assert.match(missing.body.status.envy.error, /secret named "not\.stored", which does not exist/);
  });
});

describe('mcp: OAuth 2.1 against a loopback authorization server', () => {
  let t: TestEngine;
  let auth: OAuthMcpServer;
  before(async () => {
    t = await startTestEngine();
    auth = await startOAuthMcpServer();
  });
  after(async () => {
    await t?.close();
    await auth?.close();
  });

  it('discovers, registers, authorizes through the callback page, refreshes, and logs out', async () => {
    await t.api('PUT', '/api/mcp', { servers: { secure: { type: 'http', url: auth.url } } });
    const waiting = await waitForMcp(t, (v) => v.status.secure?.state === 'needs-auth' && !!v.authUrls.secure, 'needs-auth');
    const authUrl = new URL(waiting.authUrls.secure);
    assert.equal(authUrl.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(authUrl.searchParams.get('state'));
    assert.equal(auth.stats.registrations, 1, 'dynamic client registration');

    // A callback carrying another flow's state is refused (by the page: the guard lets the
    // authorization server's cross-site redirect through to it, and only to it).
    const forged = await fetch(`${t.url}/oauth/callback/secure?code=x&state=forged`, { headers: { 'sec-fetch-site': 'cross-site' } });
    assert.equal(forged.status, 400);
    assert.match(await forged.text(), /state parameter does not match/);

    // The person's browser: the authorization server redirects back to the engine's callback page.
    const approve = await fetch(authUrl, { redirect: 'manual' });
    assert.equal(approve.status, 302);
    const back = new URL(approve.headers.get('location')!);
    assert.equal(`${back.origin}${back.pathname}`, `${t.url.replace('localhost', '127.0.0.1')}/oauth/callback/secure`);
    const crossSitePost = await fetch(`${t.url}/api/mcp/secure/logout`, { method: 'POST', headers: { 'sec-fetch-site': 'cross-site' } });
    assert.equal(crossSitePost.status, 403, 'other routes still refuse a cross-site request without Origin');
    const page = await fetch(back, { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await page.text(), /is authorized/);

    const view = await waitForMcp(t, connected('secure'), 'connected after authorization');
    assert.deepEqual(view.authUrls, {});
    const first = await callTool(t, 'secure_whoami', {});
    assert.match(first.text, /authorized as /);
    const names = (await t.api('GET', '/api/secrets')).body.names as string[];
    assert.ok(names.includes('mcp.secure.oauth.tokens') && names.includes('mcp.secure.oauth.client'));
    assert.doesNotMatch(await readFile(path.join(t.home, 'mcp.json'), 'utf8'), /access_token|refresh_token/);

    // The access token expires: the next call refreshes it without a person.
    auth.expireAccessTokens();
    const second = await callTool(t, 'secure_whoami', {});
    assert.equal(second.isError, false, second.text);
    assert.ok(auth.stats.refreshes >= 1, 'the token was refreshed');

    const out = await t.api('POST', '/api/mcp/secure/logout');
    assert.equal(out.status, 200);
    assert.equal(out.body.status.secure.state, 'needs-auth');
    assert.ok(out.body.authUrls.secure, 'a new authorization URL is offered');
    const after = (await t.api('GET', '/api/secrets')).body.names as string[];
    assert.ok(!after.includes('mcp.secure.oauth.tokens'), 'the tokens are gone');
    assert.equal(auth.stats.registrations, 2, 'the old client registration was dropped; the new URL comes with a new one');
    assert.equal(t.engine.tools.get('secure_whoami'), undefined);
  });
});
