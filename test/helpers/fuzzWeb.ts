import fc from 'fast-check';
import type { TestServer } from './server.js';
import { controlCharString, loneSurrogateString, nastyString } from './fuzzRequests.js';
import { csrfOf, WebClient } from '../web/webClient.js';

/**
 * Hostile web-app requests: the sign-in form and its `next` redirect target, the key forms and the
 * organization switch, with NUL, control characters, lone surrogates and off-site targets in every field.
 * Every answer must be below 500, and any Location a path on this site (a valid header value).
 */
export interface WebFuzzOutcome {
  cases: number;
  statuses: Record<string, number>;
  failure: string | undefined;
}

/** Redirect targets that have escaped "same-site only" checks somewhere. */
const TARGETS = ['/\t/evil.example', '/\n/evil.example', '/\r/evil.example', '/ /evil.example', '//evil.example', '/\\evil.example', '\\\\evil.example',
  'https://evil.example', 'javascript:alert(1)', '/%09/evil.example', '/%2F/evil.example', '/。', '/\u3002evil', '/\u2028/evil', '/\u0000/evil', '/\ud800', '/runs', '/credits?x=1'];

function fieldValue(): fc.Arbitrary<string> {
  return fc.oneof(nastyString(), controlCharString(), loneSurrogateString(), fc.constantFrom(...TARGETS));
}

function nextValue(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...TARGETS) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom('/', '//', '/\\', ''), controlCharString(), fc.constantFrom('evil.example/x', '127.0.0.1:18999/x', '')).map(([a, b, c]) => a + b + c) },
    { weight: 1, arbitrary: fieldValue() },
  );
}

/** Percent-encodes a string as a browser would put it in a query (a lone surrogate has no UTF-8 form: U+FFFD). */
function q(s: string): string {
  return encodeURIComponent((s as any).toWellFormed());
}

/** A Location header is safe when it is a path on this origin, in characters a header may carry. */
export function locationProblem(location: string | undefined): string | undefined {
  if (location === undefined) return undefined;
  if (!/^[\x21-\x7e]+$/.test(location)) return `Location ${JSON.stringify(location)} holds characters outside printable ASCII`;
  if (!location.startsWith('/') || location.startsWith('//') || location.startsWith('/\\')) return `Location ${JSON.stringify(location)} is not a local path`;
  if (new URL(location, 'http://here.invalid').origin !== 'http://here.invalid') return `Location ${JSON.stringify(location)} leaves the site`;
  return undefined;
}

export async function runWebFuzz(srv: TestServer, opts: { cases: number; seed?: number }): Promise<WebFuzzOutcome> {
  const user = await srv.user();
  const signedIn = new WebClient(srv.url);
  await signedIn.signIn(user.email, 'correct horse battery');
  const sessionToken = await signedIn.csrf('/settings/api-keys');
  const keyId = (await srv.services.keys.list(await srv.services.accounts.requireByEmail(user.email)))[0]!.id;
  const anon = new WebClient(srv.url);
  const loginToken = csrfOf((await anon.get('/login')).text);
  const cookieOf = (c: WebClient) => [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const statuses: Record<string, number> = {};

  const request = fc.record({
    kind: fc.constantFrom('get-login', 'get-login-signed-in', 'post-login', 'post-login-signed-in', 'create-key', 'edit-key', 'switch-org'),
    email: fc.oneof(fieldValue(), fc.constant(user.email), controlCharString().map((s) => `${s}@example.com`)),
    password: fieldValue(),
    next: nextValue(),
    label: fieldValue(),
    limit: fc.oneof(fieldValue(), fc.constantFrom('5', '0', '-1')),
    // Each case from its own address, so sign-in limits do not end the fuzzing early.
    address: fc.tuple(fc.integer({ min: 1, max: 254 }), fc.integer({ min: 1, max: 254 })).map(([a, b]) => `10.${a}.${b}.7`),
  });
  const property = fc.asyncProperty(request, async (r) => {
    const signed = r.kind !== 'get-login' && r.kind !== 'post-login';
    const cookie = cookieOf(signed ? signedIn : anon);
    const token = signed && r.kind !== 'post-login-signed-in' ? sessionToken : loginToken;
    const form = (fields: Record<string, string>) => new URLSearchParams({ _csrf: token, ...fields }).toString();
    let method = 'POST';
    let url = '';
    let payload: string | undefined;
    switch (r.kind) {
      case 'get-login':
      case 'get-login-signed-in':
        method = 'GET';
        url = `/login?next=${q(r.next)}`;
        break;
      case 'post-login':
      case 'post-login-signed-in':
        url = '/login';
        payload = form({ email: r.email, password: r.password, next: r.next });
        break;
      case 'create-key':
        url = '/settings/api-keys';
        payload = form({ label: r.label, perMinute: r.limit });
        break;
      case 'edit-key':
        url = `/settings/api-keys/${keyId}`;
        payload = form({ label: r.label, perMinute: r.limit, perDay: r.limit });
        break;
      case 'switch-org':
        url = '/session/organization';
        payload = form({ org: r.label, next: r.next });
        break;
    }
    const res = await srv.app.inject({
      method: method as 'GET' | 'POST', url, payload, remoteAddress: r.address,
      headers: { cookie, accept: 'text/html', ...(payload !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    });
    statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
    const location = res.headers.location as string | undefined;
    const problem = res.statusCode >= 500 && res.statusCode !== 503 ? `status ${res.statusCode}` : locationProblem(location);
    if (problem) throw new Error(`${r.kind} ${method} ${url.slice(0, 200)} ${payload?.slice(0, 200) ?? ''} → ${res.statusCode}: ${problem}\n${res.body.slice(0, 300)}`);
  });
  const report = await fc.check(property, { numRuns: opts.cases, seed: opts.seed });
  return {
    cases: report.numRuns,
    statuses,
    failure: report.failed ? `${fc.defaultReportMessage(report)}\n${(report.errorInstance as Error)?.message ?? report.errorInstance}` : undefined,
  };
}
