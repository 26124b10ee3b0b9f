import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
  at: number;
}

/**
 * A real HTTP webhook receiver on loopback that records every request (raw body and headers) and answers
 * with whatever `respond` says for it (default 200).
 */
export async function startReceiver(port = 0) {
  const received: Received[] = [];
  let respond: (r: Received, countForPath: number) => number = () => 200;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const r: Received = { path: req.url ?? '/', headers: req.headers as Record<string, string>, body, json: safeJson(body), at: Date.now() };
      received.push(r);
      res.statusCode = respond(r, received.filter((x) => x.path === r.path).length);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actualPort = (server.address() as AddressInfo).port;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${actualPort}${path}`,
    port: actualPort,
    received,
    setResponder(fn: typeof respond) {
      respond = fn;
    },
    forPath: (path: string) => received.filter((r) => r.path === path),
    async waitFor(pred: (all: Received[]) => boolean, timeoutMs = 30_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!pred(received)) {
        if (Date.now() > deadline) throw new Error(`receiver timed out; got ${received.map((r) => `${r.path} ${r.json?.type}`).join(', ')}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}
