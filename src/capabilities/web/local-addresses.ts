/**
 * The machine's own addresses, read from os.networkInterfaces() at every check: a server bound to
 * 0.0.0.0 (a dev server, a database, the engine itself) answers on each of them, so for the URL
 * floor each is as local as 127.0.0.1 whatever range it falls in (a public address included).
 * IPv4 carried inside IPv6 (mapped, compatible, NAT64, 6to4) is compared as the IPv4 it carries.
 */
import os from 'node:os';
import { ipBytes } from './ip-bytes.js';

function interfaceAddresses(): number[][] {
  const out: number[][] = [];
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) {
      const bytes = ipBytes(a.address);
      if (bytes) out.push(bytes);
    }
  }
  return out;
}

/** The IPv4 an IPv6 address carries in a form that can reach it, or undefined. */
function embeddedV4(b: number[]): number[] | undefined {
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12, 16);
  if (zero(0, 12)) return b.slice(12, 16);
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return b.slice(12, 16);
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6);
  return undefined;
}

const same = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Why an address (4 or 16 bytes) is refused as one of this machine's own, or undefined. */
export function localInterfaceRefusal(bytes: number[]): string | undefined {
  const v4 = bytes.length === 4 ? bytes : embeddedV4(bytes);
  for (const own of interfaceAddresses()) {
    if (same(own, bytes) || (v4 && same(own, v4))) return "an address of this machine's own network interfaces";
  }
  return undefined;
}

/**
 * Whether connecting to an address reaches this machine: loopback, unspecified (0.0.0.0 and ::
 * reach local listeners), or one of its interfaces, in any IPv4-in-IPv6 form. The floor keeps the
 * engine's own ports there closed even to hosts a person allowed (floor.ts).
 */
export function isThisMachine(address: string): boolean {
  const bytes = ipBytes(address);
  if (!bytes) return false;
  const v4 = bytes.length === 4 ? bytes : embeddedV4(bytes);
  if (v4 && (v4[0] === 127 || v4[0] === 0)) return true;
  if (bytes.length === 16 && bytes.slice(0, 15).every((x) => x === 0) && bytes[15] <= 1) return true;
  return localInterfaceRefusal(bytes) !== undefined;
}
