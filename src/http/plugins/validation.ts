import type { FastifyInstance } from 'fastify';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { AppError } from '../../errors.js';
import { sendError } from '../../errorReplies/body.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * Two validators: bodies are checked strictly (a string is never silently turned into a number, so a
 * wrongly-typed body is a 400), while path, query and header values, which are always strings on the
 * wire, are coerced to the types their schemas declare.
 */
export function registerValidation(app: FastifyInstance): void {
  // PostgreSQL text cannot hold a NUL character: one in a path segment or query value would reach a query
  // as a parameter and fail there (a 500). Refused here for every route at once (bodies: plugins/jsonBody.ts).
  // Callback-style (no promise per request); answering here ends the request, so done() is not called then.
  app.addHook('onRequest', (req, reply, done) => {
    if (!req.url.includes('%00')) return done();
    sendError(req, reply, new AppError('VALIDATION_ERROR', 'The URL must not contain NUL characters (%00)', { details: [{ path: 'url', message: 'contains %00' }] }));
  });
  const common = { allErrors: false, useDefaults: true, removeAdditional: false, strict: false } as const;
  const strict = addFormats(new Ajv({ ...common, coerceTypes: false }));
  const coercing = addFormats(new Ajv({ ...common, coerceTypes: 'array' }));
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    // Shared schemas (app.addSchema) may be referenced by $id; make them known to this validator.
    for (const shared of Object.values(app.getSchemas()) as Array<{ $id?: string }>) {
      if (shared.$id && !ajv.getSchema(shared.$id)) ajv.addSchema(shared);
    }
    return ajv.compile(schema) as any;
  });
}
