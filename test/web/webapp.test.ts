import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { buildApp } from '../../src/app/app.js';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { waitForStatus } from '../helpers/poll.js';
import { csrfOf, WebClient } from './webClient.js';

// HTTP-level tests of the web app (no browser): sessions, cookies, CSRF, sign-in limits, tenant
// isolation and what each page shows. test/web/browser.test.ts drives the same pages in Chromium.

const PASSWORD = 'correct horse battery';
let srv: TestServer;

before(async () => {
  srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' });
});
after(async () => {
  await srv.close();
});

async function signedIn(opts: Parameters<TestServer['user']>[0] = {}) {
  const u = await srv.user(opts);
  const web = new WebClient(srv.url);
  const res = await web.signIn(u.email, PASSWORD);
  assert.equal(res.status, 303, res.text.slice(0, 300));
  return { ...u, web };
}

const PAGES = ['/settings/api-keys', '/credits', '/runs', '/runs/run_abc', '/workflows', '/workflows/sound-scene', '/settings/webhooks', '/settings/api-keys/key_x/edit'];

describe('without a session', () => {
  test('every page but /login redirects to /login, remembering where it was going', async () => {
    const web = new WebClient(srv.url);
    for (const p of PAGES) {
      const r = await web.get(p);
      assert.equal(r.status, 303, p);
      assert.equal(r.location, `/login?next=${encodeURIComponent(p)}`, p);
    }
    assert.equal((await web.get('/')).location, '/login');
    const login = await web.get('/login');
    assert.equal(login.status, 200);
    assert.match(login.text, /<form method="post" action="\/login"/);
    // The live-state endpoint answers JSON, with the API's error body.
    expectErrorBody({ ...(await srv.request('GET', '/runs/run_abc/state')) }, 401, 'UNAUTHORIZED');
    // A mutation without a session goes to the sign-in page and changes nothing.
    assert.equal((await web.post('/settings/api-keys', { label: 'x' })).location, '/login');
  });

  test('after signing in, the page asked for first is where the browser lands', async () => {
    const u = await srv.user();
    const web = new WebClient(srv.url);
    const form = await web.get('/login?next=%2Fcredits');
    const r = await web.post('/login', { _csrf: csrfOf(form.text), email: u.email, password: PASSWORD, next: '/credits' });
    assert.equal(r.location, '/credits');
    // Only local paths: an absolute or protocol-relative next falls back to /runs.
    const again = new WebClient(srv.url);
    const f2 = await again.get('/login');
    assert.equal((await again.post('/login', { _csrf: csrfOf(f2.text), email: u.email, password: PASSWORD, next: '//evil.example/x' })).location, '/runs');
  });
});

describe('sessions and cookies', () => {
  test('the session cookie is HttpOnly, SameSite=Lax, Path=/, not Secure over http, and only its hash is stored', async () => {
    const u = await srv.user();
    const web = new WebClient(srv.url);
    const res = await web.signIn(u.email, PASSWORD);
    const cookie = res.setCookies.find((c) => c.startsWith('atelier_session='));
    assert.ok(cookie, res.setCookies.join(' | '));
    const attrs = cookie.split(';').map((s) => s.trim());
    assert.ok(attrs.includes('HttpOnly'));
    assert.ok(attrs.includes('SameSite=Lax'));
    assert.ok(attrs.includes('Path=/'));
    assert.ok(!attrs.includes('Secure'), 'no Secure flag on a plain-http site (the browser would drop the cookie)');
    const token = web.cookies.get('atelier_session')!;
    const rows = (await srv.services.db.query(`SELECT s.* FROM web_sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1`, [u.email])).rows;
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0].token_hash, crypto.createHash('sha256').update(token).digest());
    assert.ok(!JSON.stringify(rows[0]).includes(token), 'the token itself is in no column');
  });

  test('with an https PUBLIC_URL the cookies are Secure', async () => {
    const u = await srv.user();
    const app = await buildApp({ ...srv.services, config: { ...srv.services.config, publicUrl: 'https://atelier.example' } });
    try {
      const form = await app.inject({ method: 'GET', url: '/login' });
      const loginCookie = String(form.headers['set-cookie']);
      assert.match(loginCookie, /; Secure/);
      const res = await app.inject({
        method: 'POST', url: '/login',
        headers: { cookie: loginCookie.split(';')[0]!, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://atelier.example' },
        payload: new URLSearchParams({ _csrf: csrfOf(form.body), email: u.email, password: PASSWORD }).toString(),
      });
      assert.equal(res.statusCode, 303, res.body.slice(0, 300));
      const session = [res.headers['set-cookie']].flat().find((c) => String(c).startsWith('atelier_session='));
      assert.match(String(session), /HttpOnly/);
      assert.match(String(session), /; Secure/);
    } finally {
      await app.close();
    }
  });

  test('signing out deletes the session row, and the old cookie no longer opens pages', async () => {
    const { email, web } = await signedIn();
    const token = web.cookies.get('atelier_session')!;
    const count = async () => Number((await srv.services.db.query(`SELECT count(*) FROM web_sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1`, [email])).rows[0].count);
    assert.equal(await count(), 1);
    const out = await web.post('/logout', { _csrf: await web.csrf() });
    assert.equal(out.status, 303);
    assert.equal(out.location, '/login');
    assert.equal(await count(), 0);
    const replay = new WebClient(srv.url);
    replay.cookies.set('atelier_session', token);
    assert.equal((await replay.get('/runs')).status, 303);
  });
});

describe('CSRF', () => {
  test('a mutation without the session token, with a wrong one, or from another origin is refused and changes nothing', async () => {
    const { web, email } = await signedIn();
    const user = await srv.services.accounts.requireByEmail(email);
    const before = (await srv.services.keys.list(user)).length;
    const token = await web.csrf('/settings/api-keys');

    const none = await web.post('/settings/api-keys', { label: 'no-token' });
    assert.equal(none.status, 403);
    assert.match(none.text, /out of date or did not come from this site/);
    assert.equal((await web.post('/settings/api-keys', { label: 'wrong', _csrf: 'x'.repeat(token.length) })).status, 403);
    assert.equal((await web.post('/settings/api-keys', { label: 'other-site', _csrf: token }, { origin: 'http://evil.example' })).status, 403);
    // Another session's token does not work either.
    const other = await signedIn();
    assert.equal((await web.post('/settings/api-keys', { label: 'stolen', _csrf: await other.web.csrf() })).status, 403);
    assert.equal((await srv.services.keys.list(user)).length, before, 'no key was created');

    // The right token works, in the form or (for fetch) in the X-CSRF-Token header, from this origin.
    assert.equal((await web.post('/settings/api-keys', { label: 'ok-form', _csrf: token }, { origin: srv.url })).status, 201);
    assert.equal((await web.post('/settings/api-keys', { label: 'ok-header' }, { 'x-csrf-token': token })).status, 201);
    assert.equal((await srv.services.keys.list(user)).length, before + 2);
  });

  test('signing in needs the sign-in form\'s own token (double submit), so a foreign page cannot log a browser in', async () => {
    const u = await srv.user();
    const web = new WebClient(srv.url);
    await web.get('/login');
    assert.equal((await web.post('/login', { email: u.email, password: PASSWORD })).status, 403);
    const fresh = new WebClient(srv.url);
    assert.equal((await fresh.post('/login', { _csrf: 'a'.repeat(32), email: u.email, password: PASSWORD })).status, 403, 'no cookie to match');
    assert.ok(!fresh.cookies.has('atelier_session'));
  });
});

describe('sign-in limits', () => {
  test('after 5 attempts for one email and address, the 6th is refused with 429 even with the right password, in every API process', async () => {
    const u = await srv.user();
    const web = new WebClient(srv.url);
    const token = csrfOf((await web.get('/login')).text);
    for (let i = 0; i < 5; i++) {
      const r = await web.post('/login', { _csrf: token, email: u.email, password: `wrong-${i}` });
      assert.equal(r.status, 401, `attempt ${i + 1}`);
      assert.match(r.text, /do not match an account/);
    }
    const limited = await web.post('/login', { _csrf: token, email: u.email, password: PASSWORD });
    assert.equal(limited.status, 429);
    assert.match(limited.text, /Too many sign-in attempts/);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.ok(!web.cookies.has('atelier_session'));

    // A second API process over the same database sees the same count.
    const second = await startTestServer({}, { role: 'api', databaseUrl: srv.databaseUrl });
    try {
      const w2 = new WebClient(second.url);
      const t2 = csrfOf((await w2.get('/login')).text);
      assert.equal((await w2.post('/login', { _csrf: t2, email: u.email, password: PASSWORD })).status, 429);
    } finally {
      await second.close();
    }

    // Another email from the same address is not affected, and a success clears that email's count.
    const v = await srv.user();
    const ok = await web.post('/login', { _csrf: token, email: v.email, password: PASSWORD });
    assert.equal(ok.status, 303);
  });

  test('a successful sign-in resets the count', async () => {
    const u = await srv.user();
    const web = new WebClient(srv.url);
    const token = csrfOf((await web.get('/login')).text);
    for (let i = 0; i < 4; i++) assert.equal((await web.post('/login', { _csrf: token, email: u.email, password: 'nope-nope' })).status, 401);
    assert.equal((await web.post('/login', { _csrf: token, email: u.email, password: PASSWORD })).status, 303);
    const again = new WebClient(srv.url);
    const t2 = csrfOf((await again.get('/login')).text);
    for (let i = 0; i < 5; i++) assert.equal((await again.post('/login', { _csrf: t2, email: u.email, password: 'nope-nope' })).status, 401, `attempt ${i + 1} after the reset`);
  });
});

describe('tenant isolation', () => {
  test("another user's run, workflow and key are 404 and untouched", async () => {
    const a = await signedIn();
    const b = await signedIn();
    const run = await srv.request('POST', '/v1/nodes/word_count/run', { key: a.key, body: { input: { text: 'one two three' } } });
    assert.equal(run.status, 202, run.text);
    const runId = run.body.runId as string;
    await waitForStatus(srv, a.key, `/v1/nodes/runs/${runId}`, ['COMPLETED']);
    const wf = await srv.request('POST', '/v1/workflows/sound-scene/duplicate', { key: a.key });
    assert.equal(wf.status, 201, wf.text);

    assert.equal((await a.web.get(`/runs/${runId}`)).status, 200);
    assert.equal((await a.web.get(`/workflows/${wf.body.id}`)).status, 200);
    for (const p of [`/runs/${runId}`, `/workflows/${wf.body.id}`]) {
      const r = await b.web.get(p);
      assert.equal(r.status, 404, p);
      assert.match(r.text, /Not found/);
      assert.ok(!r.text.includes('one two three'));
    }
    const state = await b.web.get(`/runs/${runId}/state`, { accept: 'application/json' });
    assert.equal(state.status, 404);
    assert.equal(JSON.parse(state.text).code, 'NOT_FOUND');
    assert.ok(!(await b.web.get('/runs')).text.includes(runId));

    const aUser = await srv.services.accounts.requireByEmail(a.email);
    const aKey = (await srv.services.keys.list(aUser))[0]!;
    const bToken = await b.web.csrf();
    assert.equal((await b.web.post(`/settings/api-keys/${aKey.id}/revoke`, { _csrf: bToken })).status, 404);
    assert.equal((await b.web.post(`/settings/api-keys/${aKey.id}`, { _csrf: bToken, label: 'taken', perMinute: '5', perDay: '5' })).status, 404);
    assert.equal((await b.web.get(`/settings/api-keys/${aKey.id}/edit`)).status, 404);
    assert.equal((await srv.request('GET', '/v1/credits/balance', { key: a.key })).status, 200, "A's key still works");
    assert.equal((await srv.services.keys.list(aUser))[0]!.label, 'test');
  });
});

describe('pages', () => {
  test('runs list both kinds, and a model run page shows its text output', async () => {
    const u = await signedIn();
    const node = await srv.request('POST', '/v1/nodes/word_count/run', { key: u.key, body: { input: { text: 'alpha beta gamma delta' } } });
    const wf = await srv.request('POST', '/v1/runs', { key: u.key, body: { workflowId: 'sound-scene', values: {} } });
    assert.equal(wf.status, 202, wf.text);
    await waitForStatus(srv, u.key, `/v1/nodes/runs/${node.body.runId}`, ['COMPLETED']);
    const list = await u.web.get('/runs');
    assert.equal(list.status, 200);
    assert.match(list.text, new RegExp(`data-run-id="${node.body.runId}"`));
    assert.match(list.text, new RegExp(`data-run-id="${wf.body.runId}"`));
    assert.match(list.text, /Sound scene/);
    const page = await u.web.get(`/runs/${node.body.runId}`);
    assert.match(page.text, /data-run-status="COMPLETED"/);
    assert.match(page.text, /<pre class="text-output">4 words, 22 characters/, 'text output shown as text');
    assert.match(page.text, /<h3><code>words<\/code><\/h3>\s*<div class="output-items"><pre class="json-output">4<\/pre>/);
    const state = JSON.parse((await u.web.get(`/runs/${wf.body.runId}/state`, { accept: 'application/json' })).text);
    assert.equal(state.kind, 'workflow');
    assert.deepEqual(state.nodes.map((n: { id: string }) => n.id).sort(), ['effect', 'mix', 'music', 'request', 'response']);
  });

  test('credits show the balance as the API formats it, and the ledger', async () => {
    const u = await signedIn({ microcredits: 26_170_000n });
    const api = (await srv.request('GET', '/v1/credits/balance', { key: u.key })).body;
    const page = await u.web.get('/credits');
    assert.equal(api.formatted, '26.17M');
    assert.match(page.text, /id="balance-formatted">26\.17M</);
    assert.match(page.text, /Grant/);
    assert.match(page.text, /\+26,170,000/);
  });

  test('the organization switcher changes what the pages and the API keys act for', async () => {
    const org = `Studio ${crypto.randomBytes(3).toString('hex')}`;
    const u = await signedIn({ org, microcredits: 3_000_000n });
    const user = await srv.services.accounts.requireByEmail(u.email);
    await srv.services.credits.grant(user.accountId, 5_000_000n);
    let page = await u.web.get('/credits');
    assert.match(page.text, /id="balance-formatted">3\.00M</);
    assert.match(page.text, /id="org-select"/);
    const token = csrfOf(page.text);
    const sw = await u.web.post('/session/organization', { _csrf: token, org: 'personal', next: '/credits' });
    assert.equal(sw.location, '/credits');
    page = await u.web.get('/credits');
    assert.match(page.text, /id="balance-formatted">5\.00M</);
    assert.equal((await srv.request('GET', '/v1/credits/balance', { key: u.key })).body.isOrganization, false);
    assert.equal((await u.web.post('/session/organization', { _csrf: token, org: 'org_notmine', next: '/credits' })).status, 404);
    assert.equal((await u.web.post('/session/organization', { _csrf: token, org: user.activeOrgId ?? (await srv.services.accounts.organizations(user.id))[0]!.id, next: '/credits' })).status, 303);
    assert.match((await u.web.get('/credits')).text, /id="balance-formatted">3\.00M</);
  });

  test('keys: out-of-range limits and duplicate labels are refused in words; edit changes label and limits; the 10-key limit is shown and enforced', async () => {
    const u = await signedIn();
    const user = await srv.services.accounts.requireByEmail(u.email);
    const token = await u.web.csrf('/settings/api-keys');
    let r = await u.web.post('/settings/api-keys', { _csrf: token, label: 'big', perMinute: '10001' });
    assert.equal(r.status, 400);
    assert.match(r.text, /Requests per minute must be an integer from 1 to 10000/);
    assert.match(r.text, /value="big"/, 'the form keeps what was typed');
    r = await u.web.post('/settings/api-keys', { _csrf: token, label: 'old', expiresOn: '2001-01-01' });
    assert.equal(r.status, 400);
    assert.match(r.text, /Expiry date must be in the future/);
    r = await u.web.post('/settings/api-keys', { _csrf: token, label: 'test' });
    assert.equal(r.status, 409);
    assert.match(r.text, /already exists/);

    r = await u.web.post('/settings/api-keys', { _csrf: token, label: 'edit-me', perMinute: '5', perDay: '50', expiresOn: '2999-12-31' });
    assert.equal(r.status, 201);
    assert.match(r.text, /you will not see it again/);
    const shown = /id="new-key" class="mono" readonly value="(gx_[0-9A-Za-z]{40})"/.exec(r.text)![1]!;
    const created = (await srv.services.keys.list(user)).find((k) => k.label === 'edit-me')!;
    assert.equal(created.rateLimitPerMinute, 5);
    assert.equal(created.expiresAt, '2999-12-31T00:00:00.000Z');
    assert.ok(!(await u.web.get('/settings/api-keys')).text.includes(shown), 'the full key is shown once only');

    const edit = await u.web.get(`/settings/api-keys/${created.id}/edit`);
    assert.match(edit.text, /value="edit-me"/);
    r = await u.web.post(`/settings/api-keys/${created.id}`, { _csrf: token, label: 'edited', perMinute: '7', perDay: '70' });
    assert.equal(r.location, '/settings/api-keys?done=updated');
    const after = (await srv.services.keys.list(user)).find((k) => k.id === created.id)!;
    assert.deepEqual([after.label, after.rateLimitPerMinute, after.rateLimitPerDay], ['edited', 7, 70]);
    r = await u.web.post(`/settings/api-keys/${created.id}`, { _csrf: token, label: 'edited', perMinute: '7', perDay: '0' });
    assert.equal(r.status, 400);
    assert.match(r.text, /Requests per day must be an integer from 1 to 100000/);

    for (let i = (await srv.services.keys.list(user)).length; i < 10; i++) {
      assert.equal((await u.web.post('/settings/api-keys', { _csrf: token, label: `k${i}` })).status, 201);
    }
    const full = await u.web.get('/settings/api-keys');
    assert.match(full.text, /10 of 10 keys in use/);
    assert.match(full.text, /id="key-limit"/);
    assert.match(full.text, /<fieldset disabled>/);
    r = await u.web.post('/settings/api-keys', { _csrf: token, label: 'eleventh' });
    assert.equal(r.status, 409);
    assert.match(r.text, /at most 10 keys; revoke one first/);
  });

  test('webhooks: the secret is hidden until revealed, rotates, and a delivery can be replayed', async () => {
    const u = await signedIn();
    const secret = (await srv.request('GET', '/v1/webhooks/secret', { key: u.key })).body.secret as string;
    let page = await u.web.get('/settings/webhooks');
    assert.ok(!page.text.includes(secret), 'not on the page until asked for');
    assert.match(page.text, /id="secret-masked"/);
    page = await u.web.get('/settings/webhooks?reveal=1');
    assert.match(page.text, new RegExp(`value="${secret.replace(/[+/=]/g, (c) => `\\${c}`)}"`));
    const rotated = await u.web.post('/settings/webhooks/rotate', { _csrf: csrfOf(page.text) });
    assert.equal(rotated.status, 303);
    const now = (await srv.request('GET', '/v1/webhooks/secret', { key: u.key })).body.secret as string;
    assert.notEqual(now, secret);
    assert.ok((await u.web.get(rotated.location!)).text.includes(now));

    // A run with a webhook to a closed local port: its deliveries fail, and show in the log.
    const run = await srv.request('POST', '/v1/nodes/word_count/run', { key: u.key, body: { input: { text: 'a b' }, webhook: { url: 'http://127.0.0.1:9/hook' } } });
    assert.equal(run.status, 202, run.text);
    await waitForStatus(srv, u.key, `/v1/nodes/runs/${run.body.runId}`, ['COMPLETED']);
    const deliveries = async () => (await srv.request('GET', `/v1/webhooks/deliveries?runId=${run.body.runId}`, { key: u.key })).body.items as Array<{ eventId: string }>;
    const first = await deliveries();
    assert.ok(first.length > 0);
    page = await u.web.get('/settings/webhooks');
    assert.ok(page.text.includes(run.body.runId));
    const replay = await u.web.post(`/settings/webhooks/deliveries/${first[0]!.eventId}/replay`, { _csrf: csrfOf(page.text) });
    assert.equal(replay.location, '/settings/webhooks?done=replayed');
    assert.equal((await deliveries()).length, first.length + 1);
    assert.equal((await u.web.post('/settings/webhooks/deliveries/evt_notmine/replay', { _csrf: csrfOf(page.text) })).status, 404);
  });

  test('a system workflow opens with its graph data and duplicates into the account', async () => {
    const u = await signedIn();
    const page = await u.web.get('/workflows/narrated-waveform');
    assert.equal(page.status, 200);
    const data = JSON.parse(/<script type="application\/json" id="graph-data">(.*?)<\/script>/s.exec(page.text)![1]!);
    assert.deepEqual(data.nodes.map((n: { id: string }) => n.id), ['request', 'speech', 'video', 'response']);
    assert.equal(data.edges.length, 4);
    const dup = await u.web.post(`/workflows/${/action="\/workflows\/(wf_[0-9A-Za-z]+)\/duplicate"/.exec(page.text)![1]}/duplicate`, { _csrf: csrfOf(page.text) });
    assert.equal(dup.status, 303);
    assert.match(dup.location!, /^\/workflows\/wf_[0-9A-Za-z]+\?done=duplicated$/);
    const mine = (await srv.request('GET', '/v1/workflows', { key: u.key })).body.items;
    assert.equal(mine.length, 1);
    assert.equal(mine[0].name, 'Narrated waveform video (copy)');
    assert.match((await u.web.get('/workflows')).text, /Narrated waveform video \(copy\)/);
  });
});

describe('beside the API', () => {
  test('no web route is in the OpenAPI document', async () => {
    const paths = Object.keys((await srv.request('GET', '/v1/openapi.json')).body.paths);
    const web = paths.filter((p) => !p.startsWith('/v1/') && p !== '/mcp');
    assert.deepEqual(web, []);
    const registered = srv.routes().map((r) => r.url);
    for (const p of ['/login', '/settings/api-keys', '/runs/:runId', '/workflows/:id']) assert.ok(registered.includes(p), `${p} is served`);
  });

  test('an unknown page outside /v1 is an HTML 404 for a browser and the JSON error body for anyone else; /v1 is always JSON', async () => {
    const html = await fetch(`${srv.url}/nowhere`, { headers: { accept: 'text/html,application/xhtml+xml' } });
    assert.equal(html.status, 404);
    assert.match(html.headers.get('content-type')!, /^text\/html/);
    assert.match(await html.text(), /Not found/);
    expectErrorBody(await srv.request('GET', '/nowhere'), 404, 'NOT_FOUND');
    expectErrorBody(await srv.request('GET', '/v1/nowhere', { headers: { accept: 'text/html' } }), 401, 'UNAUTHORIZED');
    const u = await srv.user();
    expectErrorBody(await srv.request('GET', '/v1/nowhere', { key: u.key, headers: { accept: 'text/html' } }), 404, 'NOT_FOUND');
  });

  test('pages carry a strict Content-Security-Policy and the assets come from this server', async () => {
    const u = await signedIn();
    const r = await u.web.get('/workflows/sound-scene');
    const csp = r.headers.get('content-security-policy')!;
    assert.match(csp, /script-src 'self';/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    for (const src of r.text.match(/(?:src|href)="\/assets\/[^"]+"/g)!.map((m) => m.slice(m.indexOf('"') + 1, -1))) {
      const a = await fetch(srv.url + src);
      assert.equal(a.status, 200, src);
      const etag = a.headers.get('etag')!;
      assert.equal((await fetch(srv.url + src, { headers: { 'if-none-match': etag } })).status, 304);
    }
    assert.ok(!/https?:\/\/(?!127\.0\.0\.1)/.test(r.text.replace(/<code>[^<]*<\/code>/g, '')), 'nothing from another host');
  });
});
