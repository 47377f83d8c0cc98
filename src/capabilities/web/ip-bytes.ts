/** Byte forms of IP address text, for comparing spellings of one address. */
import net from 'node:net';

/** 16 bytes of an IPv6 address (with an optional trailing dotted IPv4 and zone), or undefined. */
export function v6Bytes(input: string): number[] | undefined {
  let s = input.split('%')[0];
  let tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    tail = dotted[1].split('.').map(Number);
    if (tail.some((x) => x > 255)) return undefined;
    s = s.slice(0, -dotted[1].length) + '0:0';
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string) => (part ? part.split(':').map((h) => parseInt(h, 16)) : []);
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  const fill = 8 - head.length - rest.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return undefined;
  const groups = [...head, ...Array(halves.length === 2 ? fill : 0).fill(0), ...rest];
  if (groups.length !== 8 || groups.some((g) => Number.isNaN(g) || g < 0 || g > 0xffff)) return undefined;
  const bytes = groups.flatMap((g) => [g >> 8, g & 0xff]);
  if (dotted) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** 4 bytes for an IPv4 address, 16 for an IPv6 one, undefined for anything else. */
export function ipBytes(address: string): number[] | undefined {
  const a = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const v = net.isIP(a.split('%')[0]);
  if (v === 4) return a.split('.').map(Number);
  if (v === 6) return v6Bytes(a);
  return undefined;
}
