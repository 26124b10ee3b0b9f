import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import type { TypedApp } from '../schemas/common.js';
import { CHANNELS } from '../../db/notifier.js';
import { principalOf } from '../plugins/auth.js';

const TERMINAL = new Set(['run.completed', 'run.failed', 'run.canceled']);

/** Open streams per server, ended when it shuts down (a client resumes on another process with Last-Event-ID). */
const openStreams = new WeakMap<Services, Set<() => void>>();
function streamsOf(services: Services): Set<() => void> {
  let set = openStreams.get(services);
  if (!set) openStreams.set(services, (set = new Set()));
  return set;
}

/**
 * Server-Sent Events of a run: the same events its webhooks carry, each with its outbox id as the SSE
 * `id` so a reconnect with Last-Event-ID resumes where it left off; the stream closes after the run's
 * final event.
 */
export async function streamRunEvents(services: Services, req: FastifyRequest, reply: FastifyReply, runId: string): Promise<void> {
  const lastHeader = req.headers['last-event-id'];
  let last = typeof lastHeader === 'string' && /^\d{1,18}$/.test(lastHeader) ? BigInt(lastHeader) : 0n;
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
  const close = () => {
    if (closed) return;
    closed = true;
    streamsOf(services).delete(close);
    off();
    offReconnect();
    clearInterval(keepAlive);
    res.end();
  };
  const pump = () => {
    pumping = pumping.then(async () => {
      if (closed) return;
      const rows = (await services.db.query(`SELECT id, type, payload FROM events WHERE run_id = $1 AND id > $2 ORDER BY id`, [runId, last])).rows;
      for (const row of rows) {
        if (closed) return;
        last = row.id;
        res.write(`id: ${row.id}\nevent: ${row.type}\ndata: ${JSON.stringify(row.payload)}\n\n`);
        if (TERMINAL.has(row.type)) return close();
      }
    }).catch(() => close());
  };
  const off = await services.notifier.subscribe(CHANNELS.events, (payload) => {
    if (payload.endsWith(`:${runId}`)) pump();
  });
  const offReconnect = services.notifier.onReconnect(pump);
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  req.raw.on('close', close);
  streamsOf(services).add(close);
  pump();
}

export async function runEventRoutes(app: TypedApp, { services }: { services: Services }): Promise<void> {
  app.addHook('preClose', async () => {
    for (const close of [...streamsOf(services)]) close();
  });
  app.get('/v1/nodes/runs/:runId/events', {
    schema: {
      tags: ['nodes'], summary: 'Stream a standalone run\'s events (Server-Sent Events)',
      description: 'Each SSE message has the outbox id as `id`, the event type as `event` and the webhook payload as `data`. Send Last-Event-ID to resume. Closes after run.completed, run.failed or run.canceled.',
      params: Type.Object({ runId: Type.String({ maxLength: 100 }) }),
      produces: ['text/event-stream'],
    },
  }, async (req, reply) => {
    const { runId } = req.params;
    await services.nodeRuns.get(principalOf(req).accountId, runId);
    await streamRunEvents(services, req, reply, runId);
  });
}
