/**
 * The http node's request: any method, through the web capability's floor-checked request (every
 * hop and the connection's own DNS answer), unless a person allowed private addresses for the node
 * (then only the scheme is checked). Redirects are followed for GET and HEAD only (a POST is never
 * replayed to another host); an answer past LIMITS.webFetchMaxBytes fails the node rather than
 * being cut; a JSON answer is parsed.
 */
import type net from 'node:net';
import { floorRequest, schemeOnly, type RequestFloor } from '../web/floor-request.js';
import type { HttpRequest, HttpResponse } from './types.js';

/** A floor with its connect-time lookup (never the system's: DNS rebinding). */
export type FloorLike = RequestFloor & { lookup: net.LookupFunction };

export function createHttpRequester(floor: FloorLike) {
  return async function request(req: HttpRequest): Promise<HttpResponse> {
    const res = await floorRequest(req.url, {
      floor: req.allowPrivate ? schemeOnly : floor,
      method: req.method,
      headers: { 'user-agent': 'WorkbenchEngine-workflow/0.1', ...req.headers },
      body: req.body,
      signal: req.signal,
      timeoutMs: req.timeoutMs,
      overflow: 'fail',
    });
    const text = res.body.toString('utf8');
    let body: unknown = text;
    if (/json/i.test(res.contentType) && text.trim()) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    return { status: res.status, headers: res.headers, body };
  };
}
