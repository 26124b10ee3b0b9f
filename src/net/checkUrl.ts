import dns from 'node:dns';
import net from 'node:net';
import { classifyAddress } from './addresses.js';
import { OutboundError } from './errors.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Host name → every A/AAAA record. Injected in tests; the default asks the system resolver. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const list = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return list.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export interface CheckUrlOptions {
  /** Operator switch (ATELIER_ALLOW_PRIVATE_URLS=1): reach private, loopback and other internal addresses. */
  allowPrivate?: boolean;
  /** Allow plain http: (otherwise https: only). */
  allowHttp?: boolean;
  resolve?: Resolver;
}

export interface CheckedUrl {
  url: URL;
  /** Host name without IPv6 brackets. */
  hostname: string;
  /** The addresses the request may connect to; the connection is pinned to these. */
  addresses: ResolvedAddress[];
}

const MAX_SHOWN_URL = 200;

/** A URL shortened for messages (data: URLs and long query strings would flood a log line). */
export function describeUrl(url: string | URL): string {
  const s = String(url);
  return s.length > MAX_SHOWN_URL ? `${s.slice(0, MAX_SHOWN_URL)}…` : s;
}

/**
 * Decides whether the service may send a request to `input`: the scheme must be https (or http when
 * allowed), and every address the host resolves to must be public unless private addresses are allowed.
 * Refusing when *any* record is internal stops a host that lists one public and one private address from
 * slipping through on the second.
 */
export async function checkUrl(input: string | URL, opts: CheckUrlOptions = {}): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    throw new OutboundError('invalid-url', `not a valid URL: ${describeUrl(input)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new OutboundError('scheme', `URL scheme ${url.protocol} is not allowed (only https${opts.allowHttp ? ' and http' : ''})`);
  }
  if (url.protocol === 'http:' && !opts.allowHttp) {
    throw new OutboundError('insecure', `plain http URLs are not allowed, use https: ${describeUrl(url)}`);
  }
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!hostname) throw new OutboundError('invalid-url', `URL has no host: ${describeUrl(url)}`);

  let addresses: ResolvedAddress[];
  const literal = net.isIP(hostname);
  if (literal) {
    addresses = [{ address: hostname, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await (opts.resolve ?? systemResolver)(hostname);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new OutboundError('dns', `cannot resolve host ${hostname}${code ? ` (${code})` : ''}`, { cause: err });
    }
    if (addresses.length === 0) throw new OutboundError('dns', `host ${hostname} has no addresses`);
  }

  if (!opts.allowPrivate) {
    for (const a of addresses) {
      const v = classifyAddress(a.address);
      if (v.blocked) {
        const via = literal ? '' : ` (${hostname} resolves to it)`;
        throw new OutboundError('blocked-address', `refused to connect: ${v.reason}${via}; set ATELIER_ALLOW_PRIVATE_URLS=1 to allow internal addresses`);
      }
    }
  }
  return { url, hostname, addresses };
}
