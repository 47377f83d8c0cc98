/**
 * Clickjacking, as issue 39 found it: a page of another origin (a second loopback server on another
 * port) frames the phone layout (`/m/#token=bogus`) or the workbench invisibly over a button of its
 * own, placed exactly where the framed page shows "Allow once" for a pending delete_file. In real
 * Chromium the framed document is blocked (nothing of the engine renders in the frame), and the
 * person's click on the bait approves nothing: the prompt stays pending and the file stays.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openBrowser } from '../support/browser.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

describe('a page of another origin framing the engine', () => {
  let t: TestEngine;
  let model: ModelServer;
  let bait: http.Server;
  let baitUrl: string;
  const pages = new Map<string, string>();
  const victim = () => path.join(t.home, 'workspace', 'victim.txt');

  before(async () => {
    model = await startModelServer();
    t = await startTestEngine();
    await t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: model.baseUrl, model: 'm' }], defaultProvider: 'scripted' });
    await writeFile(victim(), 'keep me\n');
    // A chat turn in ask mode whose delete_file waits for a person.
    model.script({ toolCalls: [{ name: 'delete_file', args: { path: 'victim.txt' } }] }, { text: 'done' });
    assert.equal((await t.api('POST', '/api/chat', { sessionId: 'tidy', message: 'tidy up' })).status, 202);
    for (let i = 0; i < 200 && !(await pending()).length; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal((await pending()).length, 1, 'the delete_file prompt is pending');
    bait = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(pages.get(req.url ?? '') ?? 'no such bait'));
    await new Promise<void>((r) => bait.listen(0, '127.0.0.1', r));
    baitUrl = `http://127.0.0.1:${(bait.address() as AddressInfo).port}`;
  });
  after(async () => {
    bait?.close();
    await t?.close();
    await model?.close();
  });

  const pending = async () => (await t.api('GET', '/api/permissions/pending')).body.pending as unknown[];

  /** Where the page shows "Allow once" to the person it is meant for (the attacker lines the bait up with it). */
  async function allowOnceBox(url: string, viewport: { width: number; height: number }) {
    const b = await openBrowser({ viewport, isMobile: viewport.width < 500 });
    try {
      await b.page.goto(url);
      const box = await (await b.page.waitForSelector('.prompt >> text=Allow once', { timeout: 30_000 })).boundingBox();
      return box!;
    } finally {
      await b.close();
    }
  }

  for (const [name, target, legit, viewport] of [
    ['the phone layout with a bogus token', '/m/#token=bogus', () => `/m/#token=${encodeURIComponent(t.engine.mobileToken)}`, { width: 390, height: 844 }],
    ['the workbench', '/approvals', () => '/approvals', { width: 1280, height: 800 }],
  ] as const) {
    it(`${name}: the frame's document is blocked and a click on the bait approves nothing`, async () => {
      const box = await allowOnceBox(t.url + legit(), viewport);
      const x = box.x + box.width / 2;
      const y = box.y + box.height / 2;
      pages.set(
        `/${encodeURIComponent(name)}`,
        `<!doctype html><html><body style="margin:0">
<button id="bait" style="position:absolute; left:${x - 60}px; top:${y - 20}px; width:120px; height:40px">Claim your prize</button>
<iframe src="${t.url}${target}" style="position:absolute; left:0; top:0; width:${viewport.width}px; height:${viewport.height}px; border:0; opacity:0.01; z-index:2"></iframe>
</body></html>`,
      );
      const b = await openBrowser({ viewport, isMobile: viewport.width < 500 });
      try {
        const resolves: string[] = [];
        b.context.on('request', (r) => void (r.url().includes('/api/permissions/resolve') && resolves.push(r.url())));
        await b.page.goto(`${baitUrl}/${encodeURIComponent(name)}`);
        const frame = b.page.frames().find((f) => f.parentFrame() === b.page.mainFrame())!;
        const rendered = frame.url().startsWith(t.url);
        // Were the frame not blocked, the attack would wait for the prompt to show before the click.
        if (rendered) await frame.waitForSelector('text=Allow once', { timeout: 15_000 }).catch(() => undefined);
        await b.shot(`framing-${viewport.width < 500 ? 'phone' : 'workbench'}`);
        await b.page.mouse.click(x, y);
        await b.page.waitForLoadState('networkidle');
        assert.equal(rendered, false, `nothing of the engine renders in the frame (frame at ${frame.url()})`);
        assert.deepEqual(resolves, [], 'no answer to the prompt was sent');
        assert.equal((await pending()).length, 1, 'the delete_file prompt is still pending');
        assert.ok(existsSync(victim()), 'the file is still there');
      } finally {
        await b.close();
      }
    });
  }
});
