import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../contract/errors.js';

/**
 * HTTP-only helpers around the contract (src/contract/): the response maps and the typed app need Fastify,
 * so they stay here; the shapes themselves live in src/contract/, where services may import them too.
 */
export { ErrorResponse };

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
