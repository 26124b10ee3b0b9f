import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { KeyService, Principal } from '../../keys/service.js';
import { rateHeaders, retryAfterSeconds } from '../../keys/rateWindow.js';
import { sendError } from '../../errorReplies/body.js';
import { roleRefusal } from '../../keys/scopes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 'required' (default under /v1), 'optional' (e.g. signed file URLs), or 'none' (public). */
    auth?: 'required' | 'optional' | 'none';
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** How many Authorization headers the request carried (rawHeaders alternates names and values). */
function authorizationCount(raw: string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 13 && raw[i]!.toLowerCase() === 'authorization') n++;
  return n;
}

/** The one place that reads the acting principal; handlers behind auth always have one. */
export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal) throw new AppError('UNAUTHORIZED', 'Invalid or expired API key');
  return req.principal;
}

/**
 * Authentication and rate limiting as one onRequest hook: every /v1 request (including unknown routes,
 * which then answer 404 only to a valid key) resolves its key and counts against the key's two windows.
 * Every authenticated answer carries the rate-limit headers.
 *
 * Callback-style, because most requests of a busy API are decided at once (key from the process's cache,
 * request admitted from its lease: keys/service.ts) and an async hook would cost each a promise and a
 * microtask turn; answering from the hook ends the request, so `done` is not called then.
 */
export function registerAuth(app: FastifyInstance, keys: KeyService): void {
  app.addHook('onRequest', (req, reply, done) => {
    const path = req.url;
    const mode = req.routeOptions.config?.auth ?? (path === '/v1' || path.startsWith('/v1/') ? 'required' : 'none');
    if (mode === 'none') return done();
    const header = req.headers.authorization;
    if (header === undefined && mode === 'optional') return done();
    // Node keeps only the first of repeated Authorization headers; an ambiguous request is refused instead.
    const match = typeof header === 'string' && authorizationCount(req.raw.rawHeaders) === 1 ? BEARER.exec(header) : null;
    const decide = (principal: Principal | undefined) => {
      if (!principal) {
        reply.header('WWW-Authenticate', 'Bearer');
        const message = header === undefined ? 'Missing API key: send Authorization: Bearer gx_…' : 'Invalid or expired API key';
        sendError(req, reply, new AppError('UNAUTHORIZED', message));
        return;
      }
      reply.headers(rateHeaders(principal.minute, principal.day));
      if (!principal.admitted) {
        const retry = retryAfterSeconds(principal.minute, principal.day, principal.nowMs);
        sendError(req, reply, new AppError('RATE_LIMITED', `Rate limit exceeded; retry in ${retry} s`, {
          headers: { 'Retry-After': String(retry) },
        }));
        return;
      }
      // A run-only or read-only key's refused call (keys/scopes.ts) ends here, before its handler.
      const refused = roleRefusal(principal.scope.role, req.method, req.routeOptions.url);
      if (refused) {
        sendError(req, reply, refused);
        return;
      }
      req.principal = principal;
      done();
    };
    let found: ReturnType<KeyService['authenticate']>;
    try {
      found = match ? keys.authenticate(match[1]!) : undefined;
    } catch (err) {
      return done(err as Error);
    }
    if (found instanceof Promise) found.then(decide).catch((err: Error) => done(err));
    else decide(found);
  });
}
