/**
 * The URL floor: what the engine never fetches for a model, whatever the permission rules say
 * (seed 001 §4.3). Refuses non-http(s) schemes, loopback, private, CGNAT, link-local, unspecified,
 * multicast and reserved addresses (IPv4, IPv6 and IPv4 embedded in IPv6), `localhost`, `.local`,
 * `.internal` and single-label hosts, and every address of this machine's own interfaces (read at
 * check time, so a new VPN or Wi-Fi address counts at once); a hostname is refused when ANY address
 * it resolves to is.
 *
 * The check runs on the URL (shape + DNS) before every request and after every redirect, and again
 * at connect time through `lookup`, so a name that resolves to a public address for the check and a
 * private one for the connection (DNS rebinding) is still refused. Exported for the browser tools
 * and load_skill.
 *
 * Hosts a person allowed (ENGINE_ALLOW_HOSTS, allow-hosts.ts) pass: a listed name or address
 * literal on its port at the check, and at connect time a listed name, or an address listed (with
 * the port actually dialled) that an unlisted name resolved to. The engine's own ports on this
 * machine stay refused whatever is listed.
 */
import dns from 'node:dns';
import net from 'node:net';
import { EngineError } from '../../kernel/errors.js';
import { hostAllowance, type AllowedHost } from './allow-hosts.js';
import { v6Bytes } from './ip-bytes.js';
import { isThisMachine, localInterfaceRefusal } from './local-addresses.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a hostname to every address (injected in tests). */
export type ResolveAll = (hostname: string) => Promise<ResolvedAddress[]>;

export interface UrlFloor {
  /** Returns the parsed URL, or throws a FloorRefusal naming why. */
  check(url: string | URL): Promise<URL>;
  /** A `net` lookup for the actual connection: resolves, then refuses forbidden addresses. */
  lookup: net.LookupFunction;
  /** The lookup of a connection to `port` (an allowed host may be listed for one port only). */
  lookupFor?(port: number): net.LookupFunction;
}

export interface UrlFloorOptions {
  resolve?: ResolveAll;
  /** Private hosts a person allowed (ENGINE_ALLOW_HOSTS). */
  allow?: AllowedHost[];
  /** The engine's own listening ports, refused on this machine's addresses whatever `allow` says. */
  ownPorts?: () => Array<number | null | undefined>;
}

export class FloorRefusal extends EngineError {
  constructor(message: string) {
    super(403, message);
    this.name = 'FloorRefusal';
  }
}

const defaultResolve: ResolveAll = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

export function createUrlFloor(options: UrlFloorOptions = {}): UrlFloor {
  const resolve = options.resolve ?? defaultResolve;
  const allowed = hostAllowance(options.allow);

  /**
   * Why connecting to `address` on `port` is refused, or undefined. `named`: the name it came from
   * is allowed on this port. An allowed host's address stays refused where it is this machine and
   * the port is the engine's own: the API takes a request without an Origin as a local person's.
   */
  function connectRefusal(address: string, port: number, named: boolean): string | undefined {
    const reason = addressRefusal(address);
    if (!reason || !(named || allowed(address, port))) return reason;
    if (options.ownPorts?.().includes(port) && isThisMachine(address)) return `${reason} where the engine itself listens on port ${port}, which no allowed host opens`;
    return undefined;
  }

  async function check(input: string | URL): Promise<URL> {
    let url: URL;
    try {
      url = typeof input === 'string' ? new URL(input) : input;
    } catch {
      throw new FloorRefusal(`"${String(input).slice(0, 200)}" is not a valid URL; pass an absolute http(s) URL`);
    }
    const shown = withoutCredentials(url.href).slice(0, 200);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FloorRefusal(`the engine does not fetch ${shown}: only http and https URLs can be fetched`);
    const host = bareHost(url.hostname);
    const port = portOf(url);
    if (net.isIP(host)) {
      const reason = connectRefusal(host, port, false);
      if (reason) throw new FloorRefusal(`the engine does not fetch ${shown}: ${reason}`);
      return url;
    }
    // A name a person allowed is judged again at connect time, by the address dialled (lookupFor).
    if (allowed(host, port)) return url;
    const hostReason = hostRefusal(host);
    if (hostReason) throw new FloorRefusal(`the engine does not fetch ${shown}: ${hostReason}`);
    let addresses: ResolvedAddress[];
    try {
      addresses = await resolve(host);
    } catch (err) {
      // Not a refusal: the name does not resolve (or DNS is unreachable).
      throw new EngineError(502, `could not resolve ${host} (${(err as NodeJS.ErrnoException).code ?? 'lookup failed'}); check the URL`);
    }
    if (addresses.length === 0) throw new EngineError(502, `could not resolve ${host}; check the URL`);
    for (const a of addresses) {
      const reason = connectRefusal(a.address, port, false);
      if (reason) throw new FloorRefusal(`the engine does not fetch ${shown}: ${host} resolves to ${a.address}, ${reason}`);
    }
    return url;
  }

  /** Port 0 (unknown) matches only hosts listed without a port. */
  const lookupFor = (port: number): net.LookupFunction => (hostname, options, callback) => {
    const host = bareHost(hostname);
    const named = allowed(host, port);
    resolve(host).then(
      (addresses) => {
        const wanted = typeof options === 'object' && options.family ? addresses.filter((a) => a.family === options.family) : addresses;
        for (const a of wanted) {
          const reason = connectRefusal(a.address, port, named);
          if (reason) return callback(new FloorRefusal(`the engine does not connect to ${hostname}: it resolves to ${a.address}, ${reason}`), '', 0);
        }
        if (!wanted.length) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        if (typeof options === 'object' && options.all) return (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, wanted);
        callback(null, wanted[0].address, wanted[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };

  return { check, lookup: lookupFor(0), lookupFor };
}

/** The engine's floor: real DNS. */
export const urlFloor: UrlFloor = createUrlFloor();

/** The port a URL dials: its own, else its scheme's. */
export const portOf = (url: URL): number => Number(url.port) || (url.protocol === 'https:' ? 443 : 80);

/** The lookup a connection to `port` resolves through: the floor's for that port, else its portless one (a test's floor); none: the system's. */
export const lookupOn = (floor: { lookup?: net.LookupFunction; lookupFor?(port: number): net.LookupFunction }, port: number): net.LookupFunction | undefined =>
  floor.lookupFor?.(port) ?? floor.lookup;

function bareHost(hostname: string): string {
  let h = hostname.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  while (h.endsWith('.')) h = h.slice(0, -1); // "example.com." is "example.com"
  return h;
}

/** Why a host (by its name or literal address) is refused, or undefined. */
export function hostRefusal(host: string): string | undefined {
  const h = bareHost(host);
  if (!h) return 'the URL has no host';
  if (net.isIP(h)) return addressRefusal(h);
  // Spellings a URL parser reads as an address (0, 0x0, 0.0, 3221225986, 0.0x0.0.0): judged as that address.
  const parsed = parsedAddress(h);
  if (parsed) return addressRefusal(parsed) ?? `"${h}" is an IP address written in an unusual form`;
  if (h === 'localhost' || h.endsWith('.localhost')) return 'localhost is the engine\'s own machine';
  if (h.endsWith('.local')) return '.local names are on the local network';
  if (h.endsWith('.internal')) return '.internal names are on a private network';
  if (!h.includes('.')) return `"${h}" is a single-label host name (a local network name)`;
  // Numeric forms WHATWG URL did not normalize (e.g. "1.2.3") are not public names.
  if (/^[0-9.]+$/.test(h) || /^0x[0-9a-f.x]+$/i.test(h)) return `"${h}" is not a valid public host`;
  return undefined;
}

function parsedAddress(host: string): string | undefined {
  try {
    const name = bareHost(new URL(`http://${host.includes(':') ? `[${host}]` : host}/`).hostname);
    return net.isIP(name) ? name : undefined;
  } catch {
    return undefined;
  }
}

/** Why an IP address is refused, or undefined for a public unicast address. */
export function addressRefusal(address: string): string | undefined {
  const a = bareHost(address);
  const v = net.isIP(a);
  if (v === 4) return v4Refusal(a.split('.').map(Number));
  if (v === 6) return v6Refusal(a);
  return `"${address}" is not an IP address`;
}

function v4Refusal(o: number[]): string | undefined {
  const [a, b, c] = o;
  if (a === 0) return 'an unspecified ("this network") address';
  if (a === 127) return 'a loopback address';
  if (a === 10) return 'a private address (10.0.0.0/8)';
  if (a === 172 && b >= 16 && b <= 31) return 'a private address (172.16.0.0/12)';
  if (a === 192 && b === 168) return 'a private address (192.168.0.0/16)';
  if (a === 100 && b >= 64 && b <= 127) return 'a carrier-grade NAT address (100.64.0.0/10)';
  if (a === 169 && b === 254) return 'a link-local address (169.254.0.0/16)';
  if (a === 192 && b === 0 && c === 0) return 'an IETF protocol assignment address (192.0.0.0/24)';
  if (a === 198 && (b === 18 || b === 19)) return 'a benchmarking address (198.18.0.0/15)';
  if (a >= 224 && a <= 239) return 'a multicast address';
  if (a >= 240) return 'a reserved or broadcast address';
  return localInterfaceRefusal(o);
}

function v6Refusal(address: string): string | undefined {
  const bytes = v6Bytes(address);
  if (!bytes) return `"${address}" is not a valid IPv6 address`;
  const zero = (from: number, to: number) => bytes.slice(from, to).every((x) => x === 0);
  const v4 = (at: number) => [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
  if (zero(0, 16)) return 'the unspecified address';
  if (zero(0, 15) && bytes[15] === 1) return 'a loopback address';
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d): judged as the IPv4 they carry, and
  // refused anyway when they carry nothing public (a mapped form has no business in a public URL).
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4Refusal(v4(12)) ?? 'an IPv4-mapped IPv6 address';
  if (zero(0, 12)) return 'an IPv4-compatible IPv6 address';
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address that decides.
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(4, 12)) {
    const r = v4Refusal(v4(12));
    if (r) return `a NAT64 form of ${r}`;
  }
  if (bytes[0] === 0x20 && bytes[1] === 0x02) {
    const r = v4Refusal(v4(2));
    if (r) return `a 6to4 form of ${r}`;
  }
  if ((bytes[0] & 0xfe) === 0xfc) return 'a unique-local (private) address (fc00::/7)';
  if (bytes[0] === 0xfe && (bytes[1] & 0xc0) === 0x80) return 'a link-local address (fe80::/10)';
  if (bytes[0] === 0xfe && (bytes[1] & 0xc0) === 0xc0) return 'a site-local address (fec0::/10)';
  if (bytes[0] === 0xff) return 'a multicast address';
  if (bytes[0] === 0x01 && zero(1, 8)) return 'a discard-only address (100::/64)';
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0x0d && bytes[3] === 0xb8) return 'a documentation address (2001:db8::/32)';
  return localInterfaceRefusal(bytes);
}

/** The URL as shown in results, events and errors: never with user:password. */
export function withoutCredentials(href: string): string {
  try {
    const url = new URL(href);
    if (!url.username && !url.password) return href;
    url.username = '';
    url.password = '';
    return url.href;
  } catch {
    return href;
  }
}
