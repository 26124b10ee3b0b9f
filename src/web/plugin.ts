import crypto from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services.js';
import { AppError } from '../errors.js';
import { sendError } from '../errorReplies/body.js';
import { logFailure, toAppError } from '../errorReplies/fromFailure.js';
import { assetRoutes } from './assets.js';
import { parseCookies } from './cookies.js';
import { field, sendHtml, type RunEventStreamer } from './context.js';
import { originAllowed, tokensEqual } from './csrf.js';
import { errorPage } from './views/errorPage.js';
import { SESSION_COOKIE, WebSessions } from './sessions.js';
import { LOGIN_COOKIE, sessionRoutes } from './routes/session.js';
import { apiKeyRoutes } from './routes/apiKeys.js';
import { creditRoutes } from './routes/credits.js';
import { runRoutes } from './routes/runs.js';
import { workflowRoutes } from './routes/workflows.js';
import { webhookRoutes } from './routes/webhooks.js';
import { editorRoutes } from './routes/editor.js';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * The web app: server-rendered pages at `/`, beside the API under `/v1`. Registered as its own
 * encapsulated plugin, so its form parser, session hook, CSRF check and HTML error pages apply to its
 * routes only; the API keeps its bearer-key auth and JSON errors untouched.
 */
export async function webApp(app: FastifyInstance, { services, streamRunEvents }: { services: Services; streamRunEvents: RunEventStreamer }): Promise<void> {
  const sessions = new WebSessions(services.db, services.accounts);

  // Web routes are not part of the API, so none of them goes into the OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...(route.schema ?? {}), hide: true };
  });

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.addHook('onRequest', async (req, reply) => {
    const mode = req.routeOptions.config?.web ?? 'page';
    if (req.url.startsWith('/assets/')) return;
    const token = parseCookies(req.headers.cookie)[SESSION_COOKIE];
    const session = await sessions.resolve(token);
    const user = session ? await services.accounts.findById(session.userId) : undefined;
    if (session && user) req.web = { session, user };
    if (req.web || mode === 'public') return;
    if (mode === 'json') return sendError(req, reply, new AppError('UNAUTHORIZED', 'Sign in first'));
    const next = SAFE_METHODS.has(req.method) ? `?next=${encodeURIComponent(req.url)}` : '';
    return reply.code(303).header('Location', `/login${next}`).send();
  });

  // Every mutation: from this site (Origin), carrying the session's CSRF token (or, to sign in, the
  // token of the sign-in form's cookie). Runs after the body is parsed, before the handler.
  app.addHook('preHandler', async (req) => {
    if (SAFE_METHODS.has(req.method)) return;
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
    if (!originAllowed(origin, { protocol: req.protocol, host: req.headers.host }, services.config.publicUrl)) {
      throw new AppError('FORBIDDEN', 'This request came from another site and was refused.');
    }
    const presented = field(req.body, '_csrf') ?? (typeof req.headers['x-csrf-token'] === 'string' ? req.headers['x-csrf-token'] : undefined);
    // Sign-in (the one public mutation) is checked against its form's cookie, even from a signed-in browser.
    const expected = req.routeOptions.config?.web === 'public' ? parseCookies(req.headers.cookie)[LOGIN_COOKIE] : req.web?.session.csrfToken;
    if (!expected || !tokensEqual(expected, presented)) {
      throw new AppError('FORBIDDEN', 'The form was out of date or did not come from this site. Reload the page and try again.');
    }
  });

  app.addHook('onSend', async (req, reply, payload) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'same-origin');
    reply.header('X-Frame-Options', 'DENY');
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('text/html')) {
      reply.header('Content-Security-Policy', contentSecurityPolicy(services.publicUrl()));
      reply.header('Cache-Control', 'no-store');
    } else if (type.startsWith('application/json')) {
      reply.header('Cache-Control', 'no-store');
    }
    return payload;
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const appErr = toAppError(err, req);
    logFailure(req, err, appErr);
    if (req.routeOptions.config?.web === 'json') return sendError(req, reply, appErr);
    return sendErrorPage(req, reply, appErr);
  });

  await app.register(assetRoutes);
  await app.register(sessionRoutes, { services, sessions });
  await app.register(apiKeyRoutes, { services });
  await app.register(creditRoutes, { services });
  await app.register(runRoutes, { services });
  await app.register(workflowRoutes, { services });
  await app.register(webhookRoutes, { services });
  await app.register(editorRoutes, { services, streamRunEvents });
}

export function sendErrorPage(req: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  if (err.headers) reply.headers(err.headers);
  return sendHtml(reply, errorPage(err.status, err.message, req.id), err.status);
}

// Cytoscape.js inserts exactly this one <style> element into the page; allowing its hash (rather than
// 'unsafe-inline') keeps every other inline style blocked.
const CYTOSCAPE_STYLE = `'sha256-${crypto.createHash('sha256').update('.__________cytoscape_container { position: relative; }').digest('base64')}'`;

/** Scripts and styles only from /assets; media also from the public origin that signed file URLs use. */
export function contentSecurityPolicy(publicUrl: string): string {
  let files = '';
  try {
    files = ` ${new URL(publicUrl).origin}`;
  } catch {
    files = '';
  }
  return [
    "default-src 'none'", "script-src 'self'", `style-src 'self' ${CYTOSCAPE_STYLE}`, `img-src 'self' data: blob:${files}`, `media-src 'self'${files}`,
    "connect-src 'self'", "font-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'",
  ].join('; ');
}

/** The HTML 404/405 page for a browser that asked for an unknown path outside the API; JSON clients keep the error body. */
export function browserErrorPage(req: FastifyRequest, err: AppError): string | undefined {
  const path = req.url.split('?')[0] ?? '/';
  if (path === '/v1' || path.startsWith('/v1/') || path === '/mcp' || path.startsWith('/mcp/')) return undefined;
  const accept = String(req.headers.accept ?? '');
  if (!/\btext\/html\b/i.test(accept)) return undefined;
  return errorPage(err.status, err.message, req.id).text;
}
