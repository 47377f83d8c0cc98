/**
 * GET through the URL floor (the web tools, load_skill): floorRequest with a browser's headers.
 * Every hop is checked and the connection resolves names through the floor's lookup (floor-request.ts).
 */
import type { UrlFloor } from './floor.js';
import { floorRequest } from './floor-request.js';

export interface GetOptions {
  floor: UrlFloor;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxBytes?: number;
  headers?: Record<string, string>;
}

export interface GetResponse {
  /** The final URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  /** The body was cut at maxBytes. */
  truncated: boolean;
}

const USER_AGENT = 'Mozilla/5.0 (compatible; WorkbenchEngine/0.1; +https://github.com/)';

/** A GET with a browser's accept headers; long answers are cut at maxBytes (`truncated`). */
export async function floorGet(input: string, options: GetOptions): Promise<GetResponse> {
  const res = await floorRequest(input, {
    floor: options.floor,
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes,
    headers: {
      'user-agent': USER_AGENT,
      accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5',
      'accept-encoding': 'gzip, deflate, br',
      ...options.headers,
    },
  });
  return { url: res.url, status: res.status, contentType: res.contentType, body: res.body, truncated: res.truncated };
}
