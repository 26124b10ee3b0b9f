import type { FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';
import { AppError } from '../../errors.js';

/**
 * JSON bodies: an empty body counts as no body (clients often send Content-Type: application/json on
 * DELETE or body-less POSTs such as duplicate), so routes without a body accept it and routes that need
 * one answer with their schema error. Prototype-poisoning keys are refused, as Fastify's own parser does.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (err) {
      done(new AppError('INVALID_JSON', `Body is not valid JSON: ${(err as Error).message}`), undefined);
    }
  });
}
