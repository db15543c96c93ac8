/**
 * Which IP addresses an external MCP server over HTTP may be reached at. Pure: it judges the address
 * a connection actually goes to (after name resolution), never the name in a URL, so a name that
 * resolves to loopback is refused like `127.0.0.1` itself.
 *
 * Refused unless the operator allows private addresses: unspecified (`0.0.0.0`, `::`), loopback,
 * private (RFC 1918, unique-local `fc00::/7`), shared (`100.64.0.0/10`), link-local, multicast,
 * broadcast and reserved ranges, and IPv6 forms that carry an IPv4 address (mapped `::ffff:a.b.c.d`,
 * compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`), which are judged by that address.
 * Text that is not an IP address at all is refused too: the caller resolves names first.
 */
import { isIP } from 'node:net';

/** Why an address is refused, or undefined when it is a public one. */
export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((part) => (/^\d{1,3}$/.test(part) ? Number(part) : Number.NaN));
  return bytes.every((byte) => byte >= 0 && byte <= 255) ? bytes : undefined;
}

/** The 16 bytes of an IPv6 address (zone id removed), or undefined. */
export function parseIpv6(text: string): number[] | undefined {
  let address = text.replace(/^\[|\]$/g, '');
  const zone = address.indexOf('%');
  if (zone >= 0) address = address.slice(0, zone);
  if (isIP(address) !== 6) return undefined;
  let tail: number[] = [];
  const lastColon = address.lastIndexOf(':');
  const last = address.slice(lastColon + 1);
  if (last.includes('.')) {
    const v4 = parseIpv4(last);
    if (!v4) return undefined;
    tail = v4;
    address = `${address.slice(0, lastColon + 1)}0:0`;
  }
  const [head = '', rest] = address.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const missing = 8 - headGroups.length - restGroups.length;
  const groups =
    rest === undefined ? headGroups : [...headGroups, ...Array(missing).fill('0'), ...restGroups];
  if (groups.length !== 8) return undefined;
  const bytes = groups.flatMap((group) => {
    const value = Number.parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

function inRange(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit += 1) {
    const index = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if (((bytes[index] ?? 0) & mask) !== ((prefix[index] ?? 0) & mask)) return false;
  }
  return true;
}

const IPV4_REFUSED: readonly [number[], number, string][] = [
  [[0, 0, 0, 0], 8, 'an unspecified ("this network") address'],
  [[10, 0, 0, 0], 8, 'a private address'],
  [[100, 64, 0, 0], 10, 'a shared (carrier-grade NAT) address'],
  [[127, 0, 0, 0], 8, 'a loopback address'],
  [[169, 254, 0, 0], 16, 'a link-local address'],
  [[172, 16, 0, 0], 12, 'a private address'],
  [[192, 0, 0, 0], 24, 'a reserved (IETF protocol) address'],
  [[192, 0, 2, 0], 24, 'a documentation address'],
  [[192, 168, 0, 0], 16, 'a private address'],
  [[198, 18, 0, 0], 15, 'a benchmarking address'],
  [[198, 51, 100, 0], 24, 'a documentation address'],
  [[203, 0, 113, 0], 24, 'a documentation address'],
  [[224, 0, 0, 0], 4, 'a multicast address'],
  [[240, 0, 0, 0], 4, 'a reserved or broadcast address'],
];

function judgeIpv4(bytes: readonly number[]): AddressVerdict {
  for (const [prefix, bits, reason] of IPV4_REFUSED) {
    if (inRange(bytes, prefix, bits)) return { allowed: false, reason };
  }
  return { allowed: true };
}

function judgeIpv6(bytes: readonly number[]): AddressVerdict {
  const zero = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  if (zero(0, 16)) return { allowed: false, reason: 'an unspecified address' };
  if (zero(0, 15) && bytes[15] === 1) return { allowed: false, reason: 'a loopback address' };
  // Forms that carry an IPv4 address are as reachable as that address.
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return judgeIpv4(bytes.slice(12));
  if (zero(0, 12)) return judgeIpv4(bytes.slice(12));
  if (inRange(bytes, [0x00, 0x64, 0xff, 0x9b], 32) && zero(4, 12)) return judgeIpv4(bytes.slice(12));
  if (inRange(bytes, [0x20, 0x02], 16)) return judgeIpv4(bytes.slice(2, 6));
  if (inRange(bytes, [0xfc], 7)) return { allowed: false, reason: 'a unique-local (private) address' };
  if (inRange(bytes, [0xfe, 0x80], 10)) return { allowed: false, reason: 'a link-local address' };
  if (inRange(bytes, [0xfe, 0xc0], 10)) return { allowed: false, reason: 'a site-local (private) address' };
  if (inRange(bytes, [0xff], 8)) return { allowed: false, reason: 'a multicast address' };
  if (inRange(bytes, [0x20, 0x01, 0x0d, 0xb8], 32))
    return { allowed: false, reason: 'a documentation address' };
  return { allowed: true };
}

/** Judges one IP address (IPv4 dotted, or IPv6 with or without brackets). */
export function judgeAddress(address: string): AddressVerdict {
  const v4 = parseIpv4(address);
  if (v4) return judgeIpv4(v4);
  const v6 = parseIpv6(address);
  if (v6) return judgeIpv6(v6);
  return { allowed: false, reason: 'not an IP address' };
}

/**
 * Judges the host of a URL before any connection: an IP literal (in any spelling the URL parser
 * accepts: `0x7f000001`, `0177.0.0.1`, `2130706433`, a trailing dot, bracketed IPv6 forms) by the
 * address it names, and `localhost` or a name under `.localhost`, which every resolver sends to loopback.
 * Other names are allowed here: only the connection knows where they resolve.
 */
export function judgeUrlHost(url: URL): AddressVerdict {
  // The WHATWG parser has already turned every IPv4 spelling into dotted decimal, and IPv6 into brackets.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) {
    return { allowed: false, reason: 'a loopback name (localhost)' };
  }
  if (isIP(host) === 0) return { allowed: true };
  return judgeAddress(host);
}
