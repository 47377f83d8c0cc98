/**
 * A conservative URL floor used only until the web capability's floor is wired in by the composition
 * root: it refuses loopback, private, link-local and unspecified addresses (literal or resolved),
 * `.local` / `.internal` names and single-label hosts (seed 001 §4.3).
 */
import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { badRequest } from '../../kernel/errors.js';
import type { UrlFloor } from './tool.js';

function privateAddress(ip: string): boolean {
  if (net.isIPv4(ip)) {
    const [a, b] = ip.split('.').map(Number);
    return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || a >= 224;
  }
  const v6 = ip.toLowerCase();
  if (v6.startsWith('::ffff:')) return privateAddress(v6.slice(7));
  return v6 === '::' || v6 === '::1' || v6.startsWith('fc') || v6.startsWith('fd') || v6.startsWith('fe80');
}

export const fallbackFloor: UrlFloor = async (url) => {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const refuse = () => badRequest(`the URL floor refuses ${url.host}: loopback, private, link-local, .local, .internal and single-label hosts are never fetched`);
  if (!host || host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) throw refuse();
  if (net.isIP(host)) {
    if (privateAddress(host)) throw refuse();
    return;
  }
  if (!host.includes('.')) throw refuse();
  const addresses = await lookup(host, { all: true }).catch(() => []);
  if (addresses.some((a) => privateAddress(a.address))) throw refuse();
};
