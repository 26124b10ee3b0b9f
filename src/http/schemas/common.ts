import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';

/** Shared response schemas. Every route lists ErrorResponse for its error statuses so OpenAPI stays true. */
export const ErrorResponse = Type.Object(
  {
    error: Type.String(),
    message: Type.String(),
    code: Type.String(),
    traceId: Type.String({ pattern: '^req_' }),
    details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), { description: 'Each offending field, as body.input.prompt-style paths' })),
    nodeErrors: Type.Optional(Type.Array(Type.Object({ nodeId: Type.String(), port: Type.Optional(Type.String()), message: Type.String() }), { description: 'INVALID_GRAPH: what is wrong with which node' })),
  },
  { $id: 'ErrorResponse', additionalProperties: true },
);

const errorRef = Type.Ref(ErrorResponse);

/** Response map for an authenticated route: the success schemas plus the errors every /v1 route can give. */
export function withErrors(success: Record<number, TSchema>, extraStatuses: number[] = []): Record<number, TSchema> {
  const out: Record<number, TSchema> = { ...success };
  for (const s of [400, 401, 429, 500, ...extraStatuses]) out[s] = errorRef;
  return out;
}

/**
 * The app as route plugins see it: with the TypeBox type provider, `req.body`, `req.query`, `req.params`
 * and `req.headers` are typed from the route's schemas (no casts in handlers), and so are replies.
 */
export type TypedApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;
