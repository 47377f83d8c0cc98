/**
 * Private hosts a person names (issue 44 §4): `ENGINE_ALLOW_HOSTS` or `--allow-hosts`, a
 * comma-separated list of `host` or `host:port` (an IP literal, `[v6]` with a port, or a name). Read
 * only from the environment or the command line of whoever starts the engine, never from the API or
 * a setting, so nothing a model or a phone writes can widen the URL floor. The floor (floor.ts) lets
 * exactly these through and still refuses every other private address.
 */
import net from 'node:net';
import { ipBytes } from './ip-bytes.js';

/** One entry: a lower-case name or an IP address, and the one port it is allowed on (none: every port). */
export interface AllowedHost {
  host: string;
  port?: number;
}

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const EXAMPLE = 'e.g. wiki.corp.example,10.0.0.5:8080,[fd00::7]:443';

/** The list, or an Error whose message says which entry is wrong and how to write it. */
export function parseAllowHosts(text: string): AllowedHost[] {
  const out: AllowedHost[] = [];
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (!item) continue;
    const entry = parseEntry(item);
    if (typeof entry === 'string') throw new Error(`"${item.slice(0, 100)}" ${entry}; give host or host:port entries separated by commas (${EXAMPLE})`);
    out.push(entry);
  }
  return out;
}

function parseEntry(item: string): AllowedHost | string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(item)) return 'is a URL, not a host';
  if (item.includes('/')) return 'is a range or a path; name each host (ranges are not accepted)';
  if (item.includes('*')) return 'holds a wildcard; name each host exactly';
  let host = item;
  let port: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(item);
  if (bracketed) {
    [, host, port] = bracketed;
    if (net.isIP(host) !== 6) return 'is not an IPv6 address in brackets';
  } else if (net.isIP(item) !== 6 && item.includes(':')) {
    host = item.slice(0, item.lastIndexOf(':'));
    port = item.slice(item.lastIndexOf(':') + 1);
    if (host.includes(':')) return 'is an IPv6 address with a port; write it as [address]:port';
  }
  const entry: AllowedHost = { host: host.toLowerCase().replace(/\.$/, '') };
  if (port !== undefined) {
    if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) return `has "${port}" where a port (1-65535) belongs`;
    entry.port = Number(port);
  }
  if (net.isIP(entry.host)) {
    if (ipBytes(entry.host)!.every((b) => b === 0)) return 'is the unspecified address, which names no host to connect to';
    return entry;
  }
  if (/^[0-9.]+$/.test(entry.host)) return 'is not a valid IPv4 address';
  if (entry.host.length > 253 || !entry.host.split('.').every((label) => LABEL.test(label))) return 'is not a valid host name';
  return entry;
}

/** The list as written back: for the startup line and the supervisor's hand-over to the engine process. */
export function formatAllowHosts(list: AllowedHost[]): string {
  return list.map(({ host, port }) => (port === undefined ? host : `${net.isIP(host) === 6 ? `[${host}]` : host}:${port}`)).join(',');
}

/** Whether the list lets a name or an address through on a port. */
export type HostAllowance = (host: string, port: number) => boolean;

export function hostAllowance(list: AllowedHost[] = []): HostAllowance {
  // Addresses compare by their bytes, so `fd00::7` and `fd00:0:0::7` are one entry.
  const key = (host: string) => ipBytes(host)?.join('.') ?? host.toLowerCase().replace(/\.$/, '');
  const ports = new Map<string, Set<number> | 'any'>();
  for (const { host, port } of list) {
    const k = key(host);
    const known = ports.get(k);
    if (known === 'any') continue;
    if (port === undefined) ports.set(k, 'any');
    else ports.set(k, (known ?? new Set<number>()).add(port));
  }
  return (host, port) => {
    const known = ports.get(key(host));
    return known === 'any' || (!!known && known.has(port));
  };
}
