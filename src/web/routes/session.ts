import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../services.js';
import { AppError } from '../../errors.js';
import { randomBase62 } from '../../ids.js';
import { parseCookies, serializeCookie } from '../cookies.js';
import { field, sendHtml, signedIn } from '../context.js';
import { safeNextPath } from '../csrf.js';
import { SESSION_COOKIE, SESSION_SECONDS, type WebSessions } from '../sessions.js';
import { loginPage } from '../views/login.js';

/** The sign-in form's own CSRF token (double submit: this cookie and the form field must match). */
export const LOGIN_COOKIE = 'atelier_login';

/** Cookies are Secure when the page came over https, or PUBLIC_URL says the site is served over https. */
export function secureCookies(req: FastifyRequest, publicUrl: string | undefined): boolean {
  return req.protocol === 'https' || (publicUrl ?? '').toLowerCase().startsWith('https://');
}

/** Sign-in, sign-out and the organization switcher. */
export async function sessionRoutes(app: FastifyInstance, { services, sessions }: { services: Services; sessions: WebSessions }): Promise<void> {
  const secure = (req: FastifyRequest) => secureCookies(req, services.config.publicUrl);

  const showLogin = (req: FastifyRequest, reply: FastifyReply, opts: { next: string; email?: string; status?: number; notice?: Parameters<typeof loginPage>[0]['notice'] }) => {
    let token = parseCookies(req.headers.cookie)[LOGIN_COOKIE];
    if (!token || !/^[0-9A-Za-z]{32}$/.test(token)) {
      token = randomBase62(32);
      reply.header('Set-Cookie', serializeCookie(LOGIN_COOKIE, token, { secure: secure(req), maxAge: 3600 }));
    }
    return sendHtml(reply, loginPage({ csrfToken: token, next: opts.next, email: opts.email, notice: opts.notice }), opts.status ?? 200);
  };

  // Behind a proxy that is not trusted, every client shares the proxy's address, and so its sign-in limits.
  let warned = false;
  const warnIfProxied = (req: FastifyRequest) => {
    if (warned || services.config.trustProxy !== false || req.headers['x-forwarded-for'] === undefined) return;
    warned = true;
    req.log.warn('sign-in request came through a proxy (X-Forwarded-For) but ATELIER_TRUST_PROXY is not set: every client shares the proxy\'s address for sign-in limits (docs/deploy.md)');
  };

  app.get('/', { config: { web: 'public' } }, async (req, reply) => reply.code(303).header('Location', req.web ? '/runs' : '/login').send());

  app.get('/login', { config: { web: 'public' } }, async (req, reply) => {
    const next = safeNextPath((req.query as Record<string, unknown>).next);
    if (req.web) return reply.code(303).header('Location', next).send();
    return showLogin(req, reply, { next });
  });

  app.post('/login', { config: { web: 'public' } }, async (req, reply) => {
    const email = field(req.body, 'email') ?? '';
    const password = field(req.body, 'password') ?? '';
    const next = safeNextPath(field(req.body, 'next'));
    if (!email || !password) return showLogin(req, reply, { next, email, status: 400, notice: { kind: 'error', text: 'Enter your email and password.' } });
    warnIfProxied(req);
    let result: Awaited<ReturnType<typeof sessions.signIn>>;
    try {
      result = await sessions.signIn(email, password, req.ip);
    } catch (err) {
      // The password-hashing queue is full (a burst of sign-ins): the form again, asking to retry shortly.
      if (!(err instanceof AppError) || err.code !== 'SERVICE_UNAVAILABLE') throw err;
      if (err.headers) reply.headers(err.headers);
      return showLogin(req, reply, { next, email, status: 503, notice: { kind: 'error', text: `${err.message}.` } });
    }
    if (!result.ok && result.reason === 'limited') {
      const minutes = Math.ceil(result.retryAfterSeconds / 60);
      reply.header('Retry-After', String(result.retryAfterSeconds));
      const what = result.scope === 'address' ? 'from your address' : 'for this email from your address';
      return showLogin(req, reply, { next, email, status: 429, notice: { kind: 'error', text: `Too many sign-in attempts ${what}. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` } });
    }
    if (!result.ok) return showLogin(req, reply, { next, email, status: 401, notice: { kind: 'error', text: 'That email and password do not match an account.' } });
    reply.header('Set-Cookie', [
      serializeCookie(SESSION_COOKIE, result.token, { secure: secure(req), maxAge: SESSION_SECONDS }),
      serializeCookie(LOGIN_COOKIE, '', { secure: secure(req), maxAge: 0 }),
    ]);
    return reply.code(303).header('Location', next).send();
  });

  app.post('/logout', async (req, reply) => {
    await sessions.close(signedIn(req).session.id);
    reply.header('Set-Cookie', serializeCookie(SESSION_COOKIE, '', { secure: secure(req), maxAge: 0 }));
    return reply.code(303).header('Location', '/login').send();
  });

  // The active organization is the user's (spec 5.6), so switching here also changes what their API keys act for.
  app.post('/session/organization', async (req, reply) => {
    const { user } = signedIn(req);
    const choice = field(req.body, 'org');
    let orgName: string | null = null;
    if (choice !== 'personal') {
      const org = (await services.accounts.organizations(user.id)).find((o) => o.id === choice);
      if (!org) throw new AppError('NOT_FOUND', 'You are not a member of that organization.');
      orgName = org.name;
    }
    await services.accounts.setActiveOrganization(user.email, orgName);
    return reply.code(303).header('Location', safeNextPath(field(req.body, 'next'))).send();
  });
}
