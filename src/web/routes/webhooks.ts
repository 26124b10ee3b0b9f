import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { actingPrincipal, pageContext, sendHtml, signedIn } from '../context.js';
import { webhooksPage } from '../views/webhooks.js';

const DONE: Record<string, string> = {
  rotated: 'Secret rotated. The previous one keeps signing for 24 hours.',
  replayed: 'The event is queued for delivery again now.',
};

/** The webhook signing secret (reveal, rotate) and the delivery log with replay. */
export async function webhookRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  app.get('/settings/webhooks', async (req, reply) => {
    const ctx = await pageContext(services, req);
    const accountId = actingPrincipal(ctx.user).accountId;
    const q = req.query as Record<string, unknown>;
    const status = typeof q.status === 'string' && q.status !== '' ? q.status : undefined;
    const cursor = typeof q.cursor === 'string' ? q.cursor : undefined;
    const log = await services.deliveries.list(accountId, { status, cursor, limit: 50 });
    const done = DONE[String(q.done ?? '')];
    return sendHtml(reply, webhooksPage(ctx, {
      // Shown only when asked for, so it is not on screen (or in a screenshot) by default.
      secret: q.reveal === '1' ? await services.webhookSecrets.current(accountId) : undefined,
      deliveries: log.items, nextCursor: log.nextCursor, status, firstPage: cursor === undefined,
      notice: done ? { kind: 'success', text: done } : undefined,
    }));
  });

  app.post('/settings/webhooks/rotate', async (req, reply) => {
    await services.webhookSecrets.rotate(actingPrincipal(signedIn(req).user).accountId);
    return reply.code(303).header('Location', '/settings/webhooks?done=rotated&reveal=1').send();
  });

  app.post('/settings/webhooks/deliveries/:eventId/replay', async (req, reply) => {
    await services.deliveries.replay(actingPrincipal(signedIn(req).user).accountId, (req.params as { eventId: string }).eventId);
    return reply.code(303).header('Location', '/settings/webhooks?done=replayed').send();
  });
}
