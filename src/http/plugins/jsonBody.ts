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
  // Fastify also parses text/plain into a string, which every route's schema then refuses as "body must be
  // object"; without that parser such a body gets the 415 that says to send JSON.
  app.removeContentTypeParser('text/plain');
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
    // PostgreSQL's text and jsonb cannot hold NUL or a lone UTF-16 surrogate (`"\ud800"` with no partner);
    // only a body that spells one as an escape is walked (raw bytes are decoded as UTF-8 and cannot).
    const bad = mayHoldBadString(text) ? pathOfBadString(parsed, 'body') : undefined;
    if (bad) {
      const what = bad.kind === 'nul' ? 'a NUL character (\\u0000)' : 'an unpaired UTF-16 surrogate (\\ud800–\\udfff without its partner)';
      return done(new AppError('VALIDATION_ERROR', `${bad.path} contains ${what}`, { details: [{ path: bad.path, message: `contains ${what}` }] }), undefined);
    }
    done(null, parsed);
  });
}

const ESCAPED_NUL_OR_SURROGATE = /\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})/;

/** Whether the JSON text spells a NUL or a surrogate as an escape (paired surrogates are fine; the walk tells). */
function mayHoldBadString(text: string): boolean {
  return ESCAPED_NUL_OR_SURROGATE.test(text);
}

type BadString = { path: string; kind: 'nul' | 'surrogate' };

function badKind(s: string): BadString['kind'] | undefined {
  if (s.includes('\u0000')) return 'nul';
  // With the u flag, a paired surrogate is one code point; only a lone one matches \p{Cs}.
  if (/\p{Cs}/u.test(s)) return 'surrogate';
  return undefined;
}

/** Where a NUL or a lone surrogate sits in a parsed body (a key or a string), or undefined. Depth is bounded by MAX_JSON_DEPTH. */
function pathOfBadString(v: unknown, at: string): BadString | undefined {
  if (typeof v === 'string') {
    const kind = badKind(v);
    return kind ? { path: at, kind } : undefined;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = pathOfBadString(v[i], `${at}.${i}`);
      if (p) return p;
    }
    return undefined;
  }
  if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      const kind = badKind(k);
      if (kind) return { path: `${at}.${JSON.stringify(k).slice(1, -1)}`, kind };
      const p = pathOfBadString(x, `${at}.${k}`);
      if (p) return p;
    }
  }
  return undefined;
}
