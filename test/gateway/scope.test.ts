/**
 * The gateway's listener and who may call it: only /v1/* on its port, the Host/Origin guard for
 * loopback callers, the bearer key for everyone else, and widening/narrowing without a restart.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { rawRequest } from '../support/raw-http.js';
import { ownAddress, startGateway, type GatewayHarness } from './support.js';

function requestTo(host: string, port: number, pathName: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host, port, path: pathName, headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('gateway: scope, key and guard', () => {
  let h: GatewayHarness;
  before(async () => {
    h = await startGateway();
  });
  after(async () => h?.close());

  it('serves only /v1/*: the engine API, its files and its sockets are unreachable on the gateway port', async () => {
    for (const p of ['/api/status', '/api/files', '/api/config', '/events', '/term', '/']) {
      const r = await rawRequest(h.port, { path: p, headers: { host: `127.0.0.1:${h.port}` } });
      assert.equal(r.status, 404, `${p} answered ${r.status}`);
      const body = JSON.parse(r.body);
      assert.equal(body.error.type, 'not_found_error');
      assert.doesNotMatch(r.body, /"tools"|"providers"/);
    }
    // A dot-segment spelling is refused by the guard before any route is looked at.
    const dotted = await rawRequest(h.port, { path: '/v1/../api/status', headers: { host: `127.0.0.1:${h.port}` } });
    assert.ok(dotted.status === 403 || dotted.status === 404, `answered ${dotted.status}`);
    assert.doesNotMatch(dotted.body, /"tools"|"providers"/);
    const api = await h.t.api('GET', '/api/status');
    assert.equal(api.status, 200, 'the API itself still answers on its own port');
  });

  it('refuses a DNS-rebinding Host and a foreign Origin from loopback with 403 in OpenAI shape', async () => {
    const rebinding = await rawRequest(h.port, { path: '/v1/models', headers: { host: `attacker.example:${h.port}` } });
    assert.equal(rebinding.status, 403);
    assert.equal(JSON.parse(rebinding.body).error.type, 'permission_error');
    const origin = await rawRequest(h.port, { path: '/v1/models', headers: { host: `127.0.0.1:${h.port}`, origin: 'https://evil.example' } });
    assert.equal(origin.status, 403);
    const ok = await rawRequest(h.port, { path: '/v1/models', headers: { host: `localhost:${h.port}` } });
    assert.equal(ok.status, 200);
  });

  it('widens to the network with a key shown once, requires it of non-loopback callers, and narrows back', async () => {
    const before = await h.t.api('GET', '/api/models');
    assert.equal(before.body.gateway.scope, 'local');
    assert.equal(before.body.gateway.host, '127.0.0.1');
    assert.equal(before.body.gateway.hasKey, false);

    const widened = await h.t.api('POST', '/api/models/api', { bind: 'network' });
    assert.equal(widened.status, 200, JSON.stringify(widened.body));
    const key = widened.body.key as string;
    assert.match(key, /^wbe-/);
    assert.equal(widened.body.scope, 'network');
    assert.equal(widened.body.port, h.port, 'the port is kept across scopes');
    assert.equal(widened.body.host, '0.0.0.0');

    const later = await h.t.api('GET', '/api/models');
    assert.equal(later.body.gateway.hasKey, true);
    assert.equal(later.body.gateway.keyFingerprint, widened.body.keyFingerprint);
    assert.doesNotMatch(JSON.stringify(later.body), new RegExp(key));
    const again = await h.t.api('POST', '/api/models/api', { bind: 'network' });
    assert.equal(again.body.key, undefined, 'the key is shown only by the answer that minted it');

    const config = await readFile(path.join(h.t.home, 'engine.config.json'), 'utf8');
    assert.equal(JSON.parse(config).api.bind, 'network', 'the scope persists under api');
    assert.doesNotMatch(config, new RegExp(key), 'the key is a secret, never in the config file');

    const address = ownAddress();
    if (!address) {
      assert.fail('this machine has no non-loopback IPv4 address to call the widened gateway from');
    }
    const noKey = new OpenAI({ baseURL: `http://${address}:${h.port}/v1`, apiKey: 'wrong-key', maxRetries: 0 });
    await assert.rejects(noKey.models.list(), (err: unknown) => err instanceof OpenAI.AuthenticationError && err.status === 401);
    const missing = await requestTo(address, h.port, '/v1/models', { host: `${address}:${h.port}` });
    assert.equal(missing.status, 401);
    assert.equal(JSON.parse(missing.body).error.code, 'missing_api_key');
    h.model.script({ text: 'from afar' });
    const withKey = new OpenAI({ baseURL: `http://${address}:${h.port}/v1`, apiKey: key, maxRetries: 0 });
    const answer = await withKey.chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(answer.choices[0].message.content, 'from afar');
    // Even with the key, the engine API is not on this port.
    const apiThere = await requestTo(address, h.port, '/api/status', { host: `${address}:${h.port}`, authorization: `Bearer ${key}` });
    assert.equal(apiThere.status, 404);

    const rotated = await h.t.api('POST', '/api/models/api', { bind: 'network', rotateKey: true });
    assert.match(rotated.body.key, /^wbe-/);
    assert.notEqual(rotated.body.key, key);
    await assert.rejects(withKey.models.list(), (err: unknown) => err instanceof OpenAI.AuthenticationError);

    const narrowed = await h.t.api('POST', '/api/models/api', { bind: 'local' });
    assert.equal(narrowed.body.scope, 'local');
    assert.equal(narrowed.body.host, '127.0.0.1');
    await assert.rejects(requestTo(address, h.port, '/v1/models', { authorization: `Bearer ${rotated.body.key}` }), /ECONNREFUSED/);
    const local = await h.client().models.list();
    assert.ok(local.data.length > 0, 'loopback callers still reach it, with no key');
  });

  it('refuses a bad scope with a sentence', async () => {
    const bad = await h.t.api('POST', '/api/models/api', { bind: 'everywhere' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /bind/);
  });
});
