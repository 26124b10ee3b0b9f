import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { AppError } from '../../errors.js';
import { sendError } from '../../errorReplies/body.js';

/** Liveness and readiness probes: public, and answered only while the database answers. */
export async function healthRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const probe = (): Promise<boolean> => services.db.ping();
  const opts = { config: { auth: 'none' as const }, schema: { hide: true } };
  app.get('/healthz', opts, async (req, reply) => {
    if (!(await probe())) return sendError(req, reply, new AppError('SERVICE_UNAVAILABLE', 'Database is not reachable'));
    return { status: 'ok' };
  });
  app.get('/readyz', opts, async (req, reply) => {
    if (!services.ready() || !(await probe())) return sendError(req, reply, new AppError('SERVICE_UNAVAILABLE', 'Not ready yet'));
    return { status: 'ok' };
  });
}
