import type { FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../accounts/service.js';
import type { Principal } from '../keys/service.js';
import type { Services } from '../services.js';
import { AppError } from '../errors.js';
import type { Html } from './html.js';
import type { PageContext } from './views/layout.js';
import type { WebSession } from './sessions.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Web app routes: 'public' needs no session (sign-in, assets), 'page' answers HTML, 'json' answers JSON (live run state). */
    web?: 'public' | 'page' | 'json';
  }
  interface FastifyRequest {
    web?: { session: WebSession; user: User };
  }
}

/** The signed-in reader; routes behind the session hook always have one. */
export function signedIn(req: FastifyRequest): { session: WebSession; user: User } {
  if (!req.web) throw new AppError('UNAUTHORIZED', 'Sign in first');
  return req.web;
}

/** Who the page acts for, in the shape the API's services take: the same account the user's keys act for. */
export function actingPrincipal(user: User): Pick<Principal, 'accountId' | 'isOrganization'> {
  return { accountId: user.actingAccountId, isOrganization: user.activeOrgId !== null };
}

export async function pageContext(services: Services, req: FastifyRequest): Promise<PageContext> {
  const { user, session } = signedIn(req);
  return {
    user,
    organizations: await services.accounts.organizations(user.id),
    csrfToken: session.csrfToken,
    path: req.url.split('?')[0] ?? '/',
  };
}

export function sendHtml(reply: FastifyReply, body: Html, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body.text);
}

/** A form field as one string (the last value when repeated); undefined when absent. */
export function field(body: unknown, name: string): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const v = (body as Record<string, unknown>)[name];
  if (Array.isArray(v)) return typeof v.at(-1) === 'string' ? (v.at(-1) as string) : undefined;
  return typeof v === 'string' ? v : undefined;
}

/**
 * Streams a run's events as server-sent events: the API's own stream (http/routes/runEvents.ts), handed in by
 * the composition root (app/app.ts) so that the web app and the API sit side by side and neither imports the other.
 */
export type RunEventStreamer = (services: Services, req: FastifyRequest, reply: FastifyReply, runId: string) => Promise<void>;
