import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { principalOf } from '../plugins/auth.js';
import { type TypedApp, withErrors } from '../schemas/common.js';

const LegacyRun = Type.Object({
  id: Type.String(), status: Type.String(), input: Type.Unknown(), output: Type.Unknown(), creditUsed: Type.Integer(),
  createdAt: Type.String(), finishedAt: Type.Union([Type.String(), Type.Null()]),
});

/** Retired models and their legacy run history (spec 4.8). */
export async function deprecatedRoutes(app: TypedApp, { services }: { services: Services }): Promise<void> {
  const tags = ['deprecated'];
  app.get('/v1/nodes/deprecated-models', {
    schema: {
      tags, summary: 'List deprecated models',
      response: withErrors({ 200: Type.Object({ items: Type.Array(Type.Object({
        nodeType: Type.String(), name: Type.String(), category: Type.String(), deprecatedAt: Type.String(), replacement: Type.String(), runCount: Type.Integer(),
      })) }) }),
    },
  }, async (req) => services.legacy.list(principalOf(req).accountId));

  app.get('/v1/nodes/deprecated-models/:nodeType/runs', {
    schema: {
      tags, summary: 'Legacy run history of a deprecated model',
      params: Type.Object({ nodeType: Type.String({ maxLength: 200 }) }),
      querystring: Type.Object({ cursor: Type.Optional(Type.String({ maxLength: 500 })), limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) }),
      response: withErrors({ 200: Type.Object({ nodeType: Type.String(), items: Type.Array(LegacyRun), nextCursor: Type.Union([Type.String(), Type.Null()]) }) }, [404]),
    },
  }, async (req) => {
    const { nodeType } = req.params;
    const { cursor, limit } = req.query;
    return services.legacy.runs(principalOf(req).accountId, nodeType, cursor, limit);
  });
}
