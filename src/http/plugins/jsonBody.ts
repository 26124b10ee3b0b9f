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
    let parsed: unknown;
    try {
      parsed = sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch (err) {
      return done(new AppError('INVALID_JSON', `Body is not valid JSON: ${(err as Error).message}`), undefined);
    }
    // PostgreSQL's text and jsonb cannot hold NUL; only a body that spells one (\u0000) is walked.
    const nulAt = text.includes('\\u0000') ? pathOfNul(parsed, 'body') : undefined;
    if (nulAt) return done(new AppError('VALIDATION_ERROR', `${nulAt} contains a NUL character (\\u0000)`, { details: [{ path: nulAt, message: 'contains a NUL character' }] }), undefined);
    done(null, parsed);
  });
}

/** Where a NUL character sits in a parsed body (a key or a string), or undefined. Depth is bounded by MAX_JSON_DEPTH. */
function pathOfNul(v: unknown, at: string): string | undefined {
  if (typeof v === 'string') return v.includes('\u0000') ? at : undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = pathOfNul(v[i], `${at}.${i}`);
      if (p) return p;
    }
    return undefined;
  }
  if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k.includes('\u0000')) return `${at}.${k.replace(/\u0000/g, '\\u0000')}`;
      const p = pathOfNul(x, `${at}.${k}`);
      if (p) return p;
    }
  }
  return undefined;
}
