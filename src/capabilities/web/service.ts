/**
 * The web capability: readable text of a page (web_fetch) and a keyless best-effort search
 * (web_search). Every request goes through the URL floor, which the engine always passes as the
 * real one; tests pass a permissive floor only to reach their own loopback servers.
 */
import { badRequest, describeError, isEngineError } from '../../kernel/errors.js';
import type { Emit } from '../../kernel/bus.js';
import { lazyRequire } from '../../kernel/lazy-require.js';
import { LIMITS } from '../../kernel/limits.js';
import { urlFloor, withoutCredentials, type UrlFloor } from './floor.js';
import { floorGet } from './http-get.js';
import { parseDuckDuckGo, type SearchResult } from './search-parse.js';

const DEFAULT_SEARCH_URL = 'https://html.duckduckgo.com/html/';

export interface WebDeps {
  floor?: UrlFloor;
  /** Base of the search endpoint (`?q=` is appended). Default: ENGINE_WEB_SEARCH_URL, else DuckDuckGo's HTML endpoint. */
  searchUrl?: () => string;
  timeoutMs?: number;
}

export type WebService = ReturnType<typeof createWebService>;

export function createWebService(deps: WebDeps = {}) {
  const floor = deps.floor ?? urlFloor;
  const timeoutMs = deps.timeoutMs ?? LIMITS.webFetchTimeoutMs;
  const searchUrl = deps.searchUrl ?? (() => process.env.ENGINE_WEB_SEARCH_URL || DEFAULT_SEARCH_URL);

  // Pages read recently, so paging with offset reads the same text (offsets stay valid) without
  // fetching again. Keyed by the requested URL; a first call (offset 0) always fetches fresh.
  const pages = new Map<string, { at: number; page: Page }>();

  async function load(url: string, offset: number, signal?: AbortSignal): Promise<{ page: Page; cached: boolean }> {
    const hit = pages.get(url);
    if (offset > 0 && hit && Date.now() - hit.at < LIMITS.webFetchCacheMs) return { page: hit.page, cached: true };
    const fetched = await floorGet(url, { floor, signal, timeoutMs });
    const kind = classify(fetched.contentType, fetched.body);
    const text = kind === 'binary' ? '' : kind === 'html' ? htmlToText(decode(fetched.body, fetched.contentType)) : decode(fetched.body, fetched.contentType);
    // Credentials in a URL (user:pass@) never reach an event or a result.
    const page: Page = { url: withoutCredentials(fetched.url), status: fetched.status, contentType: fetched.contentType, truncated: fetched.truncated, binary: kind === 'binary', text };
    if (!page.binary) {
      pages.delete(url);
      pages.set(url, { at: Date.now(), page });
      while (pages.size > LIMITS.webFetchCachePages) pages.delete(pages.keys().next().value as string);
    }
    return { page, cached: false };
  }

  /** The readable text of a page, 12 000 characters from `offset`, with a header naming the range and how to continue. */
  async function fetchText(options: { url: string; offset?: number; signal?: AbortSignal; emit?: Emit }): Promise<string> {
    const offset = options.offset ?? 0;
    if (!Number.isInteger(offset) || offset < 0) throw badRequest('offset must be a whole number of characters, 0 or more');
    const started = Date.now();
    const { page: res, cached } = await load(options.url, offset, options.signal);
    const text = res.text;
    options.emit?.('web.fetch', { url: res.url, status: res.status, contentType: res.contentType, chars: text.length, cached, durationMs: Date.now() - started });
    if (res.binary) {
      return `web_fetch refused ${res.url}: it is ${res.contentType || 'binary content'}, not text or HTML; web_fetch reads web pages and text files only.`;
    }
    if (offset > 0 && offset >= text.length) {
      throw badRequest(`offset ${offset} is past the end of ${res.url} (${text.length} characters of text); use an offset below ${text.length}`);
    }
    const end = Math.min(text.length, offset + LIMITS.webFetchChars);
    const status = res.status >= 400 ? ` HTTP ${res.status};` : '';
    const cut = res.truncated ? ` the page was cut at ${LIMITS.webFetchMaxBytes} bytes;` : '';
    const more = end < text.length ? `more remains: call web_fetch again with offset=${end}` : 'end of page';
    const header = `[${res.url} —${status}${cut} characters ${offset}-${end} of ${text.length}; ${more}]`;
    return `${header}\n${text.slice(offset, end)}`;
  }

  /** Up to 8 title/URL pairs from the keyless search endpoint. */
  async function search(options: { query: string; signal?: AbortSignal }): Promise<{ results: SearchResult[]; text: string }> {
    const query = options.query.trim();
    if (!query) throw badRequest('query is empty; pass the words to search for');
    const base = searchUrl();
    const target = `${base}${base.includes('?') ? '&' : '?'}q=${encodeURIComponent(query)}`;
    const noService = (why: string) => ({
      results: [],
      text: `No search service answered (${base}: ${why}). web_search is keyless and best effort; try again later, or web_fetch a page you know.`,
    });
    let res;
    try {
      res = await floorGet(target, { floor, signal: options.signal, timeoutMs });
    } catch (err) {
      if (options.signal?.aborted) throw err;
      return noService(isEngineError(err) ? err.message : describeError(err));
    }
    if (res.status !== 200) return noService(`HTTP ${res.status}`);
    const parsed = parseDuckDuckGo(decode(res.body, res.contentType), LIMITS.webSearchResults);
    if (parsed.blocked) return noService('it asked for a human check instead of answering');
    if (parsed.results.length === 0) return { results: [], text: `No results for "${query}".` };
    const lines = parsed.results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}`);
    return { results: parsed.results, text: `Results for "${query}":\n${lines.join('\n')}` };
  }

  return { fetchText, search };
}

type Kind = 'html' | 'text' | 'binary';

interface Page {
  url: string;
  status: number;
  contentType: string;
  truncated: boolean;
  binary: boolean;
  text: string;
}

/** HTML by type or by sniffing; text/*, JSON, XML and scripts pass through; anything else is binary. */
function classify(contentType: string, body: Buffer): Kind {
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type.startsWith('text/') || /(json|xml|javascript|ecmascript|yaml|toml|csv)/.test(type)) return 'text';
  if (type && type !== 'application/octet-stream') return 'binary';
  // No useful type: sniff. A NUL byte in the first bytes means binary.
  const head = body.subarray(0, 4096);
  if (head.includes(0)) return 'binary';
  return /<html|<!doctype html|<body|<head/i.test(head.toString('latin1')) ? 'html' : 'text';
}

function decode(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/**
 * html-to-text loads, and compiles these options once (what its convert() redoes on every call), on
 * the first fetch of a page: it is not needed to start the engine.
 */
const requireHtmlToText = lazyRequire<typeof import('html-to-text')>('html-to-text');
let toText: ((html: string) => string) | undefined;
function htmlToText(html: string): string {
  toText ??= requireHtmlToText().compile({
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true, ignoreHref: false, noAnchorUrl: true } },
      { selector: 'img', format: 'skip' },
      { selector: 'script', format: 'skip' },
      { selector: 'style', format: 'skip' },
      { selector: 'noscript', format: 'skip' },
      { selector: 'svg', format: 'skip' },
      { selector: 'nav', format: 'skip' },
      { selector: 'footer', format: 'skip' },
      { selector: 'form', format: 'skip' },
      { selector: 'h1', options: { uppercase: false } },
      { selector: 'h2', options: { uppercase: false } },
      { selector: 'h3', options: { uppercase: false } },
      { selector: 'h4', options: { uppercase: false } },
      { selector: 'h5', options: { uppercase: false } },
      { selector: 'h6', options: { uppercase: false } },
      { selector: 'table', format: 'dataTable' },
    ],
  });
  return toText(html).replace(/\n{3,}/g, '\n\n').trim();
}
