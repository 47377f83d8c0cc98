/**
 * A GET on node:http(s) streams (fetch's web streams cost ~3x the CPU per byte on a fast link),
 * following redirects (the hub sends LFS files to a CDN) and dropping the Authorization header when
 * a redirect leaves the origin, as browsers and the hub's own client do.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';

export function httpGet(url: string, headers: Record<string, string>, signal: AbortSignal, redirects = 5): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = (u.protocol === 'https:' ? https : http).get(u, { headers, signal }, (res) => {
      const location = res.headers.location;
      if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && location) {
        res.resume();
        if (redirects <= 0) return reject(new Error(`too many redirects fetching ${u.pathname}`));
        const next = new URL(location, u);
        const h = { ...headers };
        if (next.origin !== u.origin) delete h.authorization;
        return resolve(httpGet(next.toString(), h, signal, redirects - 1));
      }
      resolve(res);
    });
    req.on('error', reject);
  });
}
