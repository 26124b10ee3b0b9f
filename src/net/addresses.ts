import net from 'node:net';

/**
 * Pure classification of IP addresses for the outbound URL guard. An address is "public" only when it is
 * in none of the special-purpose ranges below; everything else (private, loopback, link-local, CGNAT,
 * multicast, documentation, reserved, and IPv6 forms that embed such an IPv4 address) is refused unless
 * the operator allows private URLs. No I/O here, so every range is unit-tested.
 */

export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'site-local'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'invalid';

export interface AddressVerdict {
  address: string;
  class: AddressClass;
  /** True when an outbound request to it must be refused (unless private URLs are allowed). */
  blocked: boolean;
  /** Words for an error message: "127.0.0.1 is a loopback address". */
  reason?: string;
}

const DESCRIBE: Record<Exclude<AddressClass, 'public'>, string> = {
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private-network address',
  'link-local': 'a link-local address',
  'unique-local': 'a unique-local (private IPv6) address',
  'site-local': 'a site-local address',
  cgnat: 'a carrier-grade NAT (shared) address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
  documentation: 'a documentation-only address',
  benchmarking: 'a benchmarking-only address',
  invalid: 'not a valid IP address',
};

interface V4Range { base: number; bits: number; cls: Exclude<AddressClass, 'public' | 'invalid'> }

const v4 = (dotted: string, bits: number, cls: V4Range['cls']): V4Range => ({ base: parseIPv4(dotted)!, bits, cls });

/** IANA IPv4 special-purpose registry entries that must not be reached from a server. Most specific first. */
const V4_RANGES: V4Range[] = [
  v4('255.255.255.255', 32, 'broadcast'),
  v4('0.0.0.0', 8, 'unspecified'),
  v4('10.0.0.0', 8, 'private'),
  v4('100.64.0.0', 10, 'cgnat'),
  v4('127.0.0.0', 8, 'loopback'),
  v4('169.254.0.0', 16, 'link-local'),
  v4('172.16.0.0', 12, 'private'),
  v4('192.0.0.0', 24, 'reserved'), // IETF protocol assignments
  v4('192.0.2.0', 24, 'documentation'),
  v4('192.88.99.0', 24, 'reserved'), // deprecated 6to4 relay anycast
  v4('192.168.0.0', 16, 'private'),
  v4('198.18.0.0', 15, 'benchmarking'),
  v4('198.51.100.0', 24, 'documentation'),
  v4('203.0.113.0', 24, 'documentation'),
  v4('224.0.0.0', 4, 'multicast'),
  v4('240.0.0.0', 4, 'reserved'),
];

/** Parses strict dotted-quad IPv4 to an unsigned 32-bit number; undefined if not one. */
export function parseIPv4(s: string): number | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const octet = Number(p);
    if (octet > 255) return undefined;
    n = n * 256 + octet;
  }
  return n;
}

/** Parses an IPv6 address (with optional zone id and dotted IPv4 tail) into 8 16-bit groups. */
export function parseIPv6(input: string): number[] | undefined {
  let s = input;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!net.isIPv6(s)) return undefined;
  // A dotted IPv4 tail stands for the last two groups: rewrite it in hex and parse one way.
  const lastColon = s.lastIndexOf(':');
  const last = s.slice(lastColon + 1);
  if (last.includes('.')) {
    const n = parseIPv4(last);
    if (n === undefined) return undefined;
    s = `${s.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const want = 8;
  let groups: number[];
  const dbl = s.indexOf('::');
  const hex = (g: string) => parseInt(g, 16);
  if (dbl >= 0) {
    const head = s.slice(0, dbl) ? s.slice(0, dbl).split(':').map(hex) : [];
    const rest = s.slice(dbl + 2) ? s.slice(dbl + 2).split(':').map(hex) : [];
    const fill = want - head.length - rest.length;
    if (fill < 0) return undefined;
    groups = [...head, ...new Array<number>(fill).fill(0), ...rest];
  } else {
    groups = s.split(':').map(hex);
  }
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return undefined;
  return groups;
}

function classifyV4(n: number): Exclude<AddressClass, 'invalid'> {
  for (const r of V4_RANGES) {
    const mask = r.bits === 0 ? 0 : (0xffffffff << (32 - r.bits)) >>> 0;
    if (((n & mask) >>> 0) === ((r.base & mask) >>> 0)) return r.cls;
  }
  return 'public';
}

const v4FromGroups = (hi: number, lo: number) => ((hi << 16) >>> 0) + lo;

function classifyV6(g: number[]): { cls: Exclude<AddressClass, 'invalid'>; embedded?: string } {
  const [a, b] = g as [number, number, ...number[]];
  const zeroUpTo = (k: number) => g.slice(0, k).every((x) => x === 0);
  const dotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
  const embed = (hi: number, lo: number) => {
    const n = v4FromGroups(hi, lo);
    return { cls: classifyV4(n), embedded: dotted(n) };
  };
  if (zeroUpTo(8)) return { cls: 'unspecified' };
  if (zeroUpTo(7) && g[7] === 1) return { cls: 'loopback' };
  // ::ffff:a.b.c.d (IPv4-mapped) and ::ffff:0:a.b.c.d (IPv4-translated): the socket reaches the IPv4 address.
  if (zeroUpTo(5) && g[5] === 0xffff) return embed(g[6]!, g[7]!);
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return embed(g[6]!, g[7]!);
  // ::a.b.c.d (deprecated IPv4-compatible): treat as the IPv4 address it names.
  if (zeroUpTo(6)) return embed(g[6]!, g[7]!);
  // 64:ff9b::/96 and 64:ff9b:1::/48 (NAT64): a gateway forwards to the embedded IPv4 address.
  if (a === 0x64 && b === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return embed(g[6]!, g[7]!);
  if (a === 0x64 && b === 0xff9b && g[2] === 1) return { cls: 'reserved' };
  // 2002::/16 (6to4) embeds an IPv4 address in groups 1–2; a private one there is a way around the guard.
  if (a === 0x2002) {
    const e = embed(g[1]!, g[2]!);
    if (e.cls !== 'public') return e;
  }
  if ((a & 0xff00) === 0xff00) return { cls: 'multicast' };
  if ((a & 0xffc0) === 0xfe80) return { cls: 'link-local' };
  if ((a & 0xffc0) === 0xfec0) return { cls: 'site-local' };
  if ((a & 0xfe00) === 0xfc00) return { cls: 'unique-local' };
  if (a === 0x2001 && b === 0x0db8) return { cls: 'documentation' };
  if (a === 0x3fff && (b & 0xf000) === 0) return { cls: 'documentation' }; // 3fff::/20 (RFC 9637)
  if (a === 0x0100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return { cls: 'reserved' }; // 100::/64 discard
  // 2001::/23 IETF protocol assignments, including Teredo 2001::/32 and ORCHID; not ordinary hosts.
  if (a === 0x2001 && b < 0x0200) return { cls: 'reserved' };
  // Only global unicast 2000::/3 is routable on the public internet.
  if ((a & 0xe000) !== 0x2000) return { cls: 'reserved' };
  return { cls: 'public' };
}

/** Classifies an IPv4 or IPv6 address literal (no brackets). */
export function classifyAddress(address: string): AddressVerdict {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const n4 = parseIPv4(bare);
  if (n4 !== undefined) {
    const cls = classifyV4(n4);
    return verdict(address, cls);
  }
  const g = parseIPv6(bare);
  if (!g) return verdict(address, 'invalid');
  const { cls, embedded } = classifyV6(g);
  const v = verdict(address, cls);
  if (v.blocked && embedded) v.reason = `${address} embeds ${embedded}, ${DESCRIBE[cls as Exclude<AddressClass, 'public'>]}`;
  return v;
}

function verdict(address: string, cls: AddressClass): AddressVerdict {
  if (cls === 'public') return { address, class: cls, blocked: false };
  return { address, class: cls, blocked: true, reason: `${address} is ${DESCRIBE[cls]}` };
}
