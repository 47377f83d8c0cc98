import assert from 'node:assert/strict';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { after, before, test } from 'node:test';
import type { UrlFloor } from '../../src/capabilities/web/floor.js';
import { createWebService } from '../../src/capabilities/web/service.js';

// Tests reach their own loopback server, so they inject a permissive floor; the real floor is tested on its own.
const openFloor: UrlFloor = { check: async (u) => new URL(String(u)), lookup: dns.lookup as any };

const ARTICLE = `<!doctype html><html><head><title>T</title><style>.x{color:red}</style><script>var secret = 1;</script></head>
<body><nav>menu menu</nav><h1>Hello page</h1><p>First paragraph with <a href="https://example.org/more">a link</a>.</p>
<ul><li>one</li><li>two</li></ul><p>${'long text '.repeat(3000)}</p><p>THE END</p></body></html>`;

function ddgPage(results: Array<[string, string]>, ad = true) {
  const items = results
    .map(
      ([title, url]) => `<div class="result results_links results_links_deep web-result"><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=${encodeURIComponent(url)}&amp;rut=abc">${title}</a></h2>
<a class="result__snippet" href="//duckduckgo.com/l/?uddg=${encodeURIComponent(url)}">snippet</a></div></div>`,
    )
    .join('\n');
  const adBlock = ad ? `<div class="result result--ad"><a class="result__a" href="https://duckduckgo.com/y.js?ad_domain=x.com&amp;u3=1">Ad title</a></div>` : '';
  return `<!DOCTYPE html><html><body><div id="links" class="results">${adBlock}${items}</div></body></html>`;
}

let server: http.Server;
let base: string;
const seenQueries: string[] = [];
let articleRequests = 0;
before(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    switch (url.pathname) {
      case '/article':
        articleRequests++;
        return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
      case '/gz':
        return res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(zlib.gzipSync('<p>zipped &amp; fine</p>'));
      case '/plain':
        return res.writeHead(200, { 'content-type': 'text/plain' }).end('plain <b>not html</b> text');
      case '/json':
        return res.writeHead(200, { 'content-type': 'application/json' }).end('{"a": 1}');
      case '/image':
        return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
      case '/moved':
        return res.writeHead(302, { location: '/plain' }).end();
      case '/missing':
        return res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not here</h1>');
      case '/hang':
        return; // never answers
      case '/html/': {
        const q = url.searchParams.get('q') ?? '';
        seenQueries.push(q);
        if (q === 'nothing') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html><div class="no-results">No results.</div></html>');
        if (q === 'robot') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html><form id="challenge-form" class="anomaly-modal"></form></html>');
        const results: Array<[string, string]> = Array.from({ length: 10 }, (_, i) => [`Result <b>${i + 1}</b> &amp; more`, `https://site${i + 1}.example/page?a=1&b=2`]);
        results.splice(1, 0, ['Duplicate', 'https://site1.example/page?a=1&b=2']);
        return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ddgPage(results));
      }
      case '/down/':
        return res.writeHead(503).end('busy');
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

test('web_fetch extracts readable text and pages it 12 000 characters at a time', async () => {
  const web = createWebService({ floor: openFloor });
  const events: any[] = [];
  const first = await web.fetchText({ url: `${base}/article`, emit: (kind, payload) => events.push({ kind, ...payload }) });
  const header = /^\[(\S+) — characters 0-12000 of (\d+); more remains: call web_fetch again with offset=12000\]\n/.exec(first);
  assert.ok(header, first.slice(0, 200));
  assert.equal(header[1], `${base}/article`);
  const total = Number(header[2]);
  assert.match(first, /Hello page/);
  assert.match(first, /First paragraph with a link \[https:\/\/example\.org\/more\]/);
  assert.doesNotMatch(first, /var secret|color:red|<p>|menu menu/);
  assert.equal(first.length - first.indexOf('\n') - 1, 12_000);
  assert.equal(events[0].kind, 'web.fetch');
  assert.equal(events[0].status, 200);
  assert.equal(events[0].chars, total);

  let offset = 12_000;
  let last = '';
  while (offset < total) {
    last = await web.fetchText({ url: `${base}/article`, offset });
    const h = /characters (\d+)-(\d+) of (\d+); (.*)\]/.exec(last)!;
    assert.equal(Number(h[1]), offset);
    offset = Number(h[2]);
  }
  assert.match(last, /end of page\]/);
  // Paging read the text fetched by the first call: one request, whatever the number of pages.
  assert.equal(articleRequests, 1);
  // A first call (offset 0) always fetches fresh.
  await web.fetchText({ url: `${base}/article` });
  assert.equal(articleRequests, 2);
  assert.match(last, /THE END$/);
  await assert.rejects(web.fetchText({ url: `${base}/article`, offset: total + 5 }), /past the end/);
});

test('web_fetch passes text through, follows redirects, decompresses, names the status, refuses binary', async () => {
  const web = createWebService({ floor: openFloor });
  assert.match(await web.fetchText({ url: `${base}/plain` }), /\nplain <b>not html<\/b> text$/);
  assert.match(await web.fetchText({ url: `${base}/json` }), /\n\{"a": 1\}$/);
  assert.match(await web.fetchText({ url: `${base}/moved` }), new RegExp(`^\\[${base}/plain — characters 0-26 of 26; end of page\\]`));
  assert.match(await web.fetchText({ url: `${base}/gz` }), /zipped & fine/);
  assert.match(await web.fetchText({ url: `${base}/missing` }), /— HTTP 404; characters .*\nNot here/);
  assert.match(await web.fetchText({ url: `${base}/image` }), /refused .*image\/png, not text or HTML/);
  const events: any[] = [];
  const withUser = await web.fetchText({ url: base.replace('//', '//user:hunter2@') + '/plain', emit: (_k, p) => events.push(p) });
  assert.doesNotMatch(withUser + JSON.stringify(events), /hunter2/);
});

test('web_fetch gives up at its timeout', async () => {
  const web = createWebService({ floor: openFloor, timeoutMs: 300 });
  await assert.rejects(web.fetchText({ url: `${base}/hang` }), /did not answer within 0.3 s/);
});

test('web_fetch in the engine keeps the real floor: the loopback server is refused', async () => {
  const web = createWebService();
  await assert.rejects(web.fetchText({ url: `${base}/article` }), /loopback/);
});

test('web_search parses up to 8 title/URL pairs from DuckDuckGo-shaped HTML', async () => {
  const web = createWebService({ floor: openFloor, searchUrl: () => `${base}/html/` });
  const { results, text } = await web.search({ query: 'node pty & more' });
  assert.equal(seenQueries.at(-1), 'node pty & more');
  assert.equal(results.length, 8);
  assert.deepEqual(results[0], { title: 'Result 1 & more', url: 'https://site1.example/page?a=1&b=2' });
  assert.equal(results[1].url, 'https://site2.example/page?a=1&b=2'); // the duplicate is dropped
  assert.ok(!results.some((r) => r.title === 'Ad title'));
  assert.match(text, /^Results for "node pty & more":\n1\. Result 1 & more\n {3}https:\/\/site1\.example\/page\?a=1&b=2\n2\./);
});

test('web_search says plainly when there are no results and when no service answers', async () => {
  const web = createWebService({ floor: openFloor, searchUrl: () => `${base}/html/` });
  assert.equal((await web.search({ query: 'nothing' })).text, 'No results for "nothing".');
  assert.match((await web.search({ query: 'robot' })).text, /^No search service answered .*human check/);
  const down = createWebService({ floor: openFloor, searchUrl: () => `${base}/down/` });
  assert.match((await down.search({ query: 'x' })).text, /^No search service answered \(.*\/down\/: HTTP 503\)/);
  const closed = createWebService({ floor: openFloor, searchUrl: () => 'http://127.0.0.1:1/html/' });
  assert.match((await closed.search({ query: 'x' })).text, /^No search service answered .*ECONNREFUSED/);
});

test('the search endpoint comes from ENGINE_WEB_SEARCH_URL', async () => {
  process.env.ENGINE_WEB_SEARCH_URL = `${base}/html/`;
  try {
    const web = createWebService({ floor: openFloor });
    assert.equal((await web.search({ query: 'env' })).results.length, 8);
  } finally {
    delete process.env.ENGINE_WEB_SEARCH_URL;
  }
});
