import { Type } from '@sinclair/typebox';

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
