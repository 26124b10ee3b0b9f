import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible chat server (GET /v1/models, POST /v1/chat/completions, plain or streamed) whose answers
 * wait: for a fixed time (`delayMs`, the bench's provider that answers in 5 s) or until the test calls
 * `release()` (no sleep in tests). It counts the calls it holds at once, the figure a per-provider limit
 * bounds; a call whose client went away (a cancel) stops counting at once.
 */
export interface GatedChat {
  url: string;
  /** Calls received and not yet answered or abandoned. */
  readonly open: number;
  readonly peakOpen: number;
  readonly received: number;
  readonly abandoned: number;
  /** Answers every held call and every later one at once. */
  release(): void;
  /** Holds calls again from now on (until the next release). */
  hold(): void;
  close(): Promise<void>;
}

export async function startGatedChat(opts: { models?: string[]; delayMs?: number } = {}): Promise<GatedChat> {
  const models = opts.models ?? ['gpt-5.4'];
  let open = 0;
  let peakOpen = 0;
  let received = 0;
  let abandoned = 0;
  let released = false;
  const held = new Set<() => void>();
  const answer = (res: http.ServerResponse, model: string, stream: boolean) => {
    if (stream) {
      // OpenAI's streamed form: chunks of deltas, the last with its finish reason, then [DONE].
      const chunk = (delta: object, finish: string | null) => `data: ${JSON.stringify({ id: `chatcmpl-gated${received}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(chunk({ role: 'assistant', content: 'Done waiting.' }, null) + chunk({}, 'stop') + 'data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({
      id: `chatcmpl-gated${received}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Done waiting.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
    }));
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'fake' })) }));
        return;
      }
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error', param: null, code: null } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      const model = String(body.model ?? '');
      const stream = body.stream === true;
      received++;
      open++;
      peakOpen = Math.max(peakOpen, open);
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        open--;
        held.delete(finish);
        clearTimeout(timer);
        if (!res.destroyed) answer(res, model, stream);
      };
      const timer = opts.delayMs !== undefined ? setTimeout(finish, opts.delayMs) : undefined;
      res.on('close', () => {
        if (done) return;
        done = true;
        open--;
        abandoned++;
        held.delete(finish);
        clearTimeout(timer);
      });
      if (released) finish();
      else if (opts.delayMs === undefined) held.add(finish);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get open() { return open; },
    get peakOpen() { return peakOpen; },
    get received() { return received; },
    get abandoned() { return abandoned; },
    release() {
      released = true;
      for (const f of [...held]) f();
    },
    hold() {
      released = false;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
