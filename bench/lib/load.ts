import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  ok: number;
  non2xx: number;
  errors: number;
}

/**
 * autocannon against one URL for `seconds`: `connections` keep-alive connections, each request optionally
 * carrying the next of `keys` (so no key's 10,000-a-minute window is what gets measured).
 */
export async function hammer(opts: { url: string; method?: string; body?: string; connections: number; seconds: number; keys?: string[]; headers?: Record<string, string>; keyPerConnection?: boolean }): Promise<LoadResult> {
  let i = 0;
  const keys = opts.keys ?? [];
  const headers = { ...(opts.body ? { 'content-type': 'application/json' } : {}), ...(opts.headers ?? {}) };
  const r = await autocannon({
    url: opts.url,
    connections: opts.connections,
    duration: opts.seconds,
    method: opts.method ?? 'GET',
    headers,
    body: opts.body,
    // keyPerConnection: each connection is one client with its own key (connection i takes keys[i]), as real clients are.
    setupClient: keys.length && opts.keyPerConnection
      ? (client: any) => client.setHeaders({ ...headers, authorization: `Bearer ${keys[i++ % keys.length]}` })
      : undefined,
    requests: keys.length && !opts.keyPerConnection ? [{
      setupRequest: (req: any) => ({ ...req, headers: { ...req.headers, authorization: `Bearer ${keys[i++ % keys.length]}` } }),
    }] : undefined,
  });
  return {
    rps: r['2xx'] / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    ok: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
  };
}
