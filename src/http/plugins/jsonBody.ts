import type { FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';
import { AppError } from '../../errors.js';
import { jsonNestingDepth } from '../jsonDepth.js';

/** Deeper than any real request; a deeper body would overflow the stack of whatever walks it next. */
export const MAX_JSON_DEPTH = 64;

/**
 * JSON bodies: an empty body counts as no body (clients often send Content-Type: application/json on
 * DELETE or body-less POSTs such as duplicate), so routes without a body accept it and routes that need
 * one answer with their schema error. Prototype-poisoning keys are refused, as Fastify's own parser does,
 * and so is nesting past MAX_JSON_DEPTH.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    if (jsonNestingDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
      return done(new AppError('VALIDATION_ERROR', `Body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`, {
        details: [{ path: 'body', message: `nests more than ${MAX_JSON_DEPTH} levels deep` }],
      }), undefined);
    }
    try {
      done(null, sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (err) {
      done(new AppError('INVALID_JSON', `Body is not valid JSON: ${(err as Error).message}`), undefined);
    }
  });
}
