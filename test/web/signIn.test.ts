import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { csrfOf, WebClient } from './webClient.js';
import { ADDRESS_LIMIT } from '../../src/web/sessions.js';
import { HASH_QUEUE, hashPassword, hashingStats, verifyPassword } from '../../src/accounts/password.js';

// Signing in to the web app and what follows it: redirect targets, NUL in form fields, hashing that cannot
// starve the service, lock-out per address, the acting account in the header. Findings of the attack on the
// web app (issue 16): redirects items 1 and 2, NUL item 4, starvation item 5, lock-out item 6, header item 15.

const PASSWORD = 'correct horse battery';
let srv: TestServer; // trusts X-Forwarded-For from 127.0.0.1, as behind the load balancer of docs/deploy.md

before(async () => {
  srv = await startTestServer({ ATELIER_TRUST_PROXY: '127.0.0.1' });
});
after(async () => {
  await srv.close();
});

/** A browser at a given client address (as the trusted proxy reports it). */
function browserAt(address: string, base = srv.url) {
  const web = new WebClient(base);
  const headers = { 'x-forwarded-for': address };
  return {
    web,
    get: (p: string) => web.get(p, headers),
    async signIn(email: string, password: string, next = '/runs') {
      const form = await web.get('/login', headers);
      return web.post('/login', { _csrf: csrfOf(form.text), email, password, next }, headers);
    },
  };
}

describe('redirects after sign-in', () => {
  test('control characters cannot turn `next` into another site (1) and odd characters are not a 500 (2)', async () => {
    const u = await srv.user();
    const b = browserAt('192.0.2.10');
    assert.equal((await b.signIn(u.email, PASSWORD, '/\t/127.0.0.1:18999/x')).location, '/runs');
    for (const next of ['/%09/127.0.0.1:18999/x', '/%0a/evil.example', '/%0d%0a/evil.example', '%2F%2Fevil.example', '/%5Cevil.example', '/%E2%80%8B/evil.example']) {
      const r = await b.get(`/login?next=${next}`);
      assert.equal(r.status, 303, next);
      assert.equal(r.location, '/runs', next);
    }
    const odd = await b.get('/login?next=/%E3%80%82');
    assert.equal(odd.status, 303, odd.text.slice(0, 200));
    assert.equal(odd.location, '/%E3%80%82');
    const signedOut = browserAt('192.0.2.11');
    const page = await signedOut.get('/login?next=/%E3%80%82');
    assert.equal(page.status, 200);
    const r = await signedOut.signIn(u.email, PASSWORD, '/。');
    assert.equal(r.status, 303, r.text.slice(0, 200));
    assert.equal(r.location, '/%E3%80%82');
  });
});

describe('NUL in form fields', () => {
  test('a key label with NUL, on create and on edit, answers the form again with the error', async () => {
    const u = await srv.user();
    const b = browserAt('192.0.2.20');
    assert.equal((await b.signIn(u.email, PASSWORD)).status, 303);
    const token = await b.web.csrf('/settings/api-keys');
    const created = await b.web.post('/settings/api-keys', { _csrf: token, label: 'bad\u0000label' });
    assert.equal(created.status, 400, created.text.slice(0, 300));
    assert.match(created.text, /Label must not contain control characters/);
    assert.match(created.text, /<form/);
    const keys = await srv.services.keys.list(await srv.services.accounts.requireByEmail(u.email));
    const edited = await b.web.post(`/settings/api-keys/${keys[0]!.id}`, { _csrf: token, label: 'x\u0000y', perMinute: '5', perDay: '5' });
    assert.equal(edited.status, 400, edited.text.slice(0, 300));
    assert.match(edited.text, /Label must not contain control characters/);
  });

  test('a sign-in email with NUL answers the sign-in form', async () => {
    const u = await srv.user();
    const r = await browserAt('192.0.2.21').signIn(`${u.email}\u0000`, PASSWORD);
    assert.equal(r.status, 401, r.text.slice(0, 300));
    assert.match(r.text, /do not match an account/);
  });
});

describe('sign-in cannot starve the service', () => {
  test('password hashing runs on its own bounded pool: file reads go on while sign-ins are hashed', async () => {
    const stored = await hashPassword('whatever-it-is');
    let hashed = 0;
    const n = Math.min(12, HASH_QUEUE - 2);
    const sign = Array.from({ length: n }, () => verifyPassword('wrong-password', stored).then(() => hashed++));
    const file = path.join(os.tmpdir(), `atelier-io-${process.pid}`);
    await fs.promises.writeFile(file, 'x');
    await fs.promises.readFile(file);
    const doneWhenRead = hashed;
    await Promise.all(sign);
    fs.rmSync(file, { force: true });
    // On libuv's shared pool (4 threads) the read would have waited behind all but the last few hashes.
    assert.ok(doneWhenRead < n / 2, `the file read waited for ${doneWhenRead} of ${n} hashes`);
    assert.ok(hashingStats().threads <= 1, 'at most one hashing thread');
  });

  test('a full hashing queue refuses sign-ins at once with 503, not queued without bound', async () => {
    const stored = await hashPassword('whatever-it-is');
    const flood = Promise.allSettled(Array.from({ length: HASH_QUEUE + 8 }, () => verifyPassword('nope', stored)));
    // Creating a user (an operator's command) waits its turn rather than being refused.
    const created = hashPassword('a new user\'s password');
    const results = await flood;
    const refused = results.filter((r) => r.status === 'rejected');
    assert.ok(refused.length >= 1, 'some were refused');
    for (const r of refused) assert.equal((r as PromiseRejectedResult).reason.status, 503);
    assert.match(await created, /^scrypt\$/);
  });

  test(`after ${ADDRESS_LIMIT.attempts} failed sign-ins from one address with any emails, that address is refused before hashing; others are not`, async () => {
    const b = browserAt('198.51.100.50');
    const form = await b.get('/login');
    const token = csrfOf(form.text);
    const statuses: number[] = [];
    for (let batch = 0; batch < 5; batch++) {
      const rs = await Promise.all(Array.from({ length: 8 }, (_, i) => b.web.post('/login', { _csrf: token, email: `fake${batch}-${i}@example.com`, password: 'guess-guess' }, { 'x-forwarded-for': '198.51.100.50' })));
      statuses.push(...rs.map((r) => r.status));
    }
    assert.equal(statuses.filter((s) => s === 401).length, ADDRESS_LIMIT.attempts, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 429).length, 40 - ADDRESS_LIMIT.attempts);
    const limited = await b.web.post('/login', { _csrf: token, email: 'another@example.com', password: 'x' }, { 'x-forwarded-for': '198.51.100.50' });
    assert.equal(limited.status, 429);
    assert.match(limited.text, /Too many sign-in attempts from your address/);
    // A real user elsewhere signs in as usual.
    const u = await srv.user();
    assert.equal((await browserAt('198.51.100.51').signIn(u.email, PASSWORD)).status, 303);
  });
});

describe('lock-out behind a proxy', () => {
  test('with ATELIER_TRUST_PROXY, an attacker failing for a victim\'s email locks out only the attacker\'s address', async () => {
    const victim = await srv.user();
    const attacker = browserAt('203.0.113.9');
    for (let i = 0; i < 5; i++) assert.equal((await attacker.signIn(victim.email, `guess-${i}`)).status, 401);
    assert.equal((await attacker.signIn(victim.email, 'guess-x')).status, 429);
    const real = await browserAt('198.51.100.7').signIn(victim.email, PASSWORD);
    assert.equal(real.status, 303, real.text.slice(0, 200));
  });

  test('without it, X-Forwarded-For is not believed: an attacker cannot dodge the limit by inventing addresses', async () => {
    const plain = await startTestServer({}, { role: 'api', databaseUrl: srv.databaseUrl });
    try {
      const victim = await srv.user();
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await browserAt(`203.0.113.${100 + i}`, plain.url).signIn(victim.email, `guess-${i}`)).status);
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
    } finally {
      await plain.close();
    }
  });
});

describe('acting account', () => {
  test('the header says which account the pages and the user\'s keys act for', async () => {
    const u = await srv.user({ org: 'Hardening Org' });
    const b = browserAt('192.0.2.40');
    assert.equal((await b.signIn(u.email, PASSWORD)).status, 303);
    assert.match((await b.get('/runs')).text, /class="who"[^>]*>[^<]*acting for <strong>Hardening Org<\/strong>/);
    const p = await srv.user();
    const c = browserAt('192.0.2.41');
    assert.equal((await c.signIn(p.email, PASSWORD)).status, 303);
    assert.match((await c.get('/runs')).text, /class="who"[^>]*>[^<]*acting for personal account/);
  });
});
