/**
 * The phone layout (/m/) at a phone's viewport, reached the way a phone reaches it: the engine bound
 * to every interface and Chromium calling this machine's non-loopback address, so the guard sees a
 * non-loopback peer and every data request must carry the mobile token from the pairing URL. The
 * shell itself loads without it (seed 000 §4.20).
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, describe, it } from 'node:test';
import { openBrowser, type TestBrowser } from '../support/browser.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { gateFlow } from '../support/gate-flow.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

const lan = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && !a.internal && a.family === 'IPv4')?.address;

describe('the phone layout', { skip: lan ? false : 'this machine has no non-loopback IPv4 address to reach the engine from' }, () => {
  let t: TestEngine;
  let model: ModelServer;
  let b: TestBrowser;
  let base: string;
  before(async () => {
    model = await startModelServer();
    t = await startTestEngine({ bind: '0.0.0.0' });
    await t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: model.baseUrl, model: 'm' }], defaultProvider: 'scripted' });
    base = `http://${lan}:${t.engine.port}`;
    b = await openBrowser({ viewport: { width: 390, height: 844 }, isMobile: true });
  });
  after(async () => {
    await b?.close();
    await t?.close();
    await model?.close();
  });

  it('without the token the shell loads, says how to pair, and the data stays closed', async () => {
    const res = await fetch(`${base}/api/status`);
    assert.equal(res.status, 403, 'a LAN peer without the token is refused');
    await b.page.goto(`${base}/m/`);
    await b.page.waitForSelector('text=No pairing token');
    await b.shot('phone-unpaired');
  });

  it('with the pairing token: approvals, runs in flight and chat work, and it says push needs HTTPS', async () => {
    const tokenHeaders: string[] = [];
    b.page.on('request', (r) => void (r.url().includes('/api/') && tokenHeaders.push(r.headers()['x-engine-mobile-token'] ?? 'none')));
    await t.api('PUT', '/api/workflows/deploy', gateFlow('deploy', 'Deploy to production?', { node: 'ok' }));
    const run = await t.api('POST', '/api/runs/deploy', {});
    await b.page.goto(`${base}/m/#token=${encodeURIComponent(t.engine.mobileToken)}`);
    await b.page.waitForSelector('text=Deploy to production?');
    // Plain HTTP on a LAN address is not a secure context.
    await b.page.waitForSelector('text=push notifications need HTTPS');
    assert.ok(!b.page.url().includes('token='), 'the token leaves the address bar');
    await b.shot('phone-approvals');
    await b.page.click('.tabs >> text=Running');
    await b.page.waitForSelector(`text=deploy`);
    await b.shot('phone-running');
    await b.page.click('.tabs >> text=Approvals');
    await b.page.click('text=Approve');
    await b.page.waitForSelector('text=Nothing is waiting for you.');
    const log = await t.api('GET', `/api/runs/${run.body.runId}/events`);
    assert.ok(log.body.events.some((e: any) => e.kind === 'gate.resolved' && e.approved === true));

    model.script({ text: 'Hello from the phone.' });
    await b.page.click('.tabs >> text=Chat');
    await b.page.click('text=New chat');
    await b.page.fill('.composer textarea', 'hi');
    await b.page.click('text=Send');
    await b.page.waitForSelector('.msg.assistant >> text=Hello from the phone.');
    await b.shot('phone-chat');
    assert.ok(tokenHeaders.length > 3);
    assert.deepEqual([...new Set(tokenHeaders)], [t.engine.mobileToken], 'every data request carried the token');
    assert.deepEqual(b.refused, [], 'no request of the paired page was refused');
  });
});
