import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The loopback HTTP server under each provider fake: records every request, and lets a test put
 * scripted answers (429 with Retry-After, 5xx, hangs, dropped connections) in front of the fake's normal behaviour.
 */

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  json<T = any>(): T;
}

export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  body?: Buffer | string;
  /** Wait before answering (for time-out tests). */
  delayMs?: number;
  /** Never answer. */
  hang?: boolean;
  /** Close the connection without answering (a reset after the request arrived). */
  drop?: boolean;
  /**
   * For a scripted reply: let the fake act on the request as usual (create the job …) and only then apply
   * `delayMs`/`hang` — a provider that accepted the work but whose answer never arrived.
   */
  passThrough?: boolean;
  /** Server-sent events: each string is written as one chunk, `gapMs` apart. */
  chunks?: string[];
  gapMs?: number;
  /** Chunk `chunk` (an index of `chunks`) is written only once `until` settles: a stream held at a known point, by order not time. */
  holdBefore?: Array<{ chunk: number; until: Promise<unknown> }>;
}

export interface Scripted extends FakeReply {
  method?: string;
  path: RegExp;
}

export type Route = (req: FakeRequest, fake: FakeServer) => FakeReply | Promise<FakeReply>;

export class FakeServer {
  readonly calls: FakeRequest[] = [];
  readonly script: Scripted[] = [];
  private server!: http.Server;
  url = '';

  constructor(private readonly route: Route) {}

  /** Answers the next matching request with `reply` instead of the fake's normal behaviour. */
  inject(method: string, path: RegExp, ...replies: FakeReply[]): void {
    for (const r of replies) this.script.push({ method, path, ...r });
  }

  callsTo(method: string, path: RegExp): FakeRequest[] {
    return this.calls.filter((c) => c.method === method && path.test(c.path));
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void this.handle(req, res, Buffer.concat(chunks)));
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) {
    const u = new URL(req.url ?? '/', 'http://fake');
    const fr: FakeRequest = {
      method: req.method ?? 'GET',
      path: u.pathname,
      query: u.searchParams,
      headers: req.headers,
      body,
      json: () => JSON.parse(body.toString('utf8')),
    };
    this.calls.push(fr);
    const i = this.script.findIndex((s) => (!s.method || s.method === fr.method) && s.path.test(fr.path));
    let reply: FakeReply;
    try {
      const scripted = i >= 0 ? this.script.splice(i, 1)[0]! : undefined;
      reply = scripted && !scripted.passThrough ? scripted : await this.route(fr, this);
      if (scripted?.passThrough) reply = { ...reply, delayMs: scripted.delayMs, hang: scripted.hang, drop: scripted.drop };
    } catch (err) {
      reply = { status: 500, json: { detail: `fake crashed: ${(err as Error).message}` } };
    }
    if (reply.hang) return;
    if (reply.drop) {
      res.socket?.destroy();
      return;
    }
    // Unref'd: a long delay whose answer nobody waits for any more does not hold the test's process open.
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs).unref());
    if (res.destroyed) return;
    const headers = { ...(reply.headers ?? {}) };
    if (reply.chunks) {
      res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
      for (const [i, c] of reply.chunks.entries()) {
        for (const h of reply.holdBefore ?? []) if (h.chunk === i) await h.until;
        if (res.destroyed) return;
        res.write(c);
        if (reply.gapMs) await new Promise((r) => setTimeout(r, reply.gapMs));
      }
      res.end();
      return;
    }
    let payload: Buffer | string = '';
    if (reply.json !== undefined) {
      payload = JSON.stringify(reply.json);
      headers['content-type'] ??= 'application/json';
    } else if (reply.body !== undefined) payload = reply.body;
    res.writeHead(reply.status ?? 200, headers);
    res.end(payload);
  }
}
