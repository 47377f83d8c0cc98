/**
 * Reads DuckDuckGo's HTML endpoint (html.duckduckgo.com/html/): result links are
 * `<a class="result__a" href="//duckduckgo.com/l/?uddg=<encoded target>&...">title</a>`; ads point at
 * duckduckgo.com/y.js and are skipped. A page with an anomaly/captcha form is a refusal, not "no results".
 */

export interface SearchResult {
  title: string;
  url: string;
}

export function parseDuckDuckGo(html: string, max: number): { results: SearchResult[]; blocked: boolean } {
  const results: SearchResult[] = [];
  const seen = new Set<string>();
  const anchor = /<a\b([^>]*\bclass\s*=\s*["'][^"']*\bresult__a\b[^"']*["'][^>]*)>([\s\S]*?)<\/a>/gi;
  for (const m of html.matchAll(anchor)) {
    const href = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(m[1]);
    const url = targetOf(decodeEntities(href?.[1] ?? href?.[2] ?? ''));
    if (!url || seen.has(url)) continue;
    const title = decodeEntities(m[2].replace(/<[^>]*>/g, '')).replace(/\s+/g, ' ').trim();
    seen.add(url);
    results.push({ title: title || url, url });
    if (results.length >= max) break;
  }
  const blocked = results.length === 0 && /anomaly-modal|challenge-form|g-recaptcha|captcha/i.test(html);
  return { results, blocked };
}

/** The real target of a result link: the `uddg` parameter of a redirect link, or the link itself. */
function targetOf(href: string): string | undefined {
  if (!href) return undefined;
  let url: URL;
  try {
    url = new URL(href, 'https://duckduckgo.com/');
  } catch {
    return undefined;
  }
  const uddg = url.searchParams.get('uddg');
  if (uddg) {
    try {
      url = new URL(uddg);
    } catch {
      return undefined;
    }
  } else if (/(^|\.)duckduckgo\.com$/i.test(url.hostname)) {
    return undefined; // an ad (y.js) or an internal link
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return url.href;
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, code: string) => {
    if (code[0] === '#') {
      const n = code[1].toLowerCase() === 'x' ? parseInt(code.slice(2), 16) : parseInt(code.slice(1), 10);
      return Number.isFinite(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : whole;
    }
    return NAMED[code.toLowerCase()] ?? whole;
  });
}
