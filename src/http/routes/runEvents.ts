import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import type { TypedApp } from '../schemas/common.js';
import { CHANNELS } from '../../db/notifier.js';
import { principalOf } from '../plugins/auth.js';
import type { EndStream } from '../../keys/streams.js';
import { AppError } from '../../errors.js';
import { eventsAfter } from '../../events/outbox.js';
import { deltaFrame, listenForDeltas } from '../../events/outputDeltas.js';
import { STREAMED_OUTPUT_RULES } from '../../contract/webhooks.js';

const TERMINAL = new Set(['run.completed', 'run.failed', 'run.canceled']);

/** What both stream routes say about keys (OpenAPI descriptions). */
export const STREAM_RULES = 'A stream obeys its key: within seconds of the key being revoked or expiring it ends with a final `error` event whose data is the error body (code UNAUTHORIZED). One key (or one signed-in web session, for the editor streams) may hold at most ATELIER_STREAMS_PER_KEY open streams (default 25) across all API processes; past that the request is answered 429 RATE_LIMITED.';

/**
 * Server-Sent Events of a run: the same events its webhooks carry, each with its outbox id as the SSE
 * `id` so a reconnect with Last-Event-ID resumes where it left off; the stream closes after the run's
 * final event.
 */
export async function streamRunEvents(services: Services, req: FastifyRequest, reply: FastifyReply, runId: string): Promise<void> {
  const lastHeader = req.headers['last-event-id'];
  let last = typeof lastHeader === 'string' && /^\d{1,18}$/.test(lastHeader) ? BigInt(lastHeader) : 0n;
  // Counted against the key's cap before anything is sent (429 past it); ended with an error event when the key stops being valid.
  // The web app's editor streams for a signed-in session, which has no key: the session is held to the same
  // cap and ends its streams when it ends (issue 26, finding 9). Every stream route comes through here.
  const holder = req.principal ? principalOf(req).keyId : req.web?.session.id;
  if (!holder) throw new AppError('UNAUTHORIZED', 'an event stream needs an API key or a signed-in session');
  let endForKey: EndStream = () => {};
  const releaseKey = await services.streams.openFor(holder, (reason) => endForKey(reason));
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-request-id': req.id,
    'x-accel-buffering': 'no',
  });
  res.write(': stream of run events\n\n');
  let closed = false;
  let pumping: Promise<void> = Promise.resolve();
  let off: (() => void) | undefined;
  let offDeltas: (() => void) | undefined;
  let offReconnect: (() => void) | undefined;
  let keepAlive: NodeJS.Timeout | undefined;
  const close = () => {
    if (closed) return;
    closed = true;
    services.streams.untrack(close);
    releaseKey();
    off?.();
    offDeltas?.();
    offReconnect?.();
    clearInterval(keepAlive);
    res.end();
  };
  const pump = () => {
    pumping = pumping.then(async () => {
      if (closed) return;
      const rows = await eventsAfter(services.db, runId, last);
      for (const row of rows) {
        if (closed) return;
        last = row.id;
        res.write(`id: ${row.id}\nevent: ${row.type}\ndata: ${JSON.stringify(row.payload)}\n\n`);
        if (TERMINAL.has(row.type)) return close();
      }
    }).catch(() => close());
  };
  // Known to the shutdown before the first await: a stop that comes while the subscription is being made
  // must still end this stream (the client has its first bytes and waits).
  services.streams.track(close);
  req.raw.on('close', close);
  const unsubscribe = await services.notifier.subscribe(CHANNELS.events, (payload) => {
    if (payload.endsWith(`:${runId}`)) pump();
  });
  if (closed) return unsubscribe();
  off = unsubscribe;
  // Streamed output (never stored, no SSE id): queued behind the pump so it keeps its place among the events.
  offDeltas = await listenForDeltas(services.notifier, runId, (d) => {
    pumping = pumping.then(() => void (closed || res.write(deltaFrame(d))));
  });
  if (closed) return offDeltas();
  offReconnect = services.notifier.onReconnect(pump);
  keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  endForKey = (reason) => {
    if (closed) return;
    const body = { error: reason.message, message: reason.message, code: reason.code, traceId: req.id };
    res.write(`event: error\ndata: ${JSON.stringify(body)}\n\n`);
    close();
  };
  pump();
}

export async function runEventRoutes(app: TypedApp, { services }: { services: Services }): Promise<void> {
  app.addHook('preClose', async () => services.streams.endAll());
  app.get('/v1/nodes/runs/:runId/events', {
    schema: {
      tags: ['nodes'], summary: 'Stream a standalone run\'s events (Server-Sent Events)',
      description: `Each SSE message has the outbox id as \`id\`, the event type as \`event\` and the webhook payload as \`data\`. Send Last-Event-ID to resume. Closes after run.completed, run.failed or run.canceled. ${STREAMED_OUTPUT_RULES} ${STREAM_RULES}`,
      params: Type.Object({ runId: Type.String({ maxLength: 100 }) }),
      produces: ['text/event-stream'],
    },
  }, async (req, reply) => {
    const { runId } = req.params;
    await services.nodeRuns.get(principalOf(req).accountId, runId);
    await streamRunEvents(services, req, reply, runId);
  });
}
