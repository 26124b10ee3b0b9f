import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { noChromium, openBrowser, type OpenBrowser } from './chromium.js';
import { WebClient } from './webClient.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { contentDisposition, scriptCapable, servedInline } from '../../src/files/servePolicy.js';

// Issue 26, finding 1: an uploaded SVG ran script on the app's own origin. Alice uploaded an SVG with a
// script and sent Bob its signed link; Bob, signed in, opened it and the script created a key for him.
// Now: script-capable uploads are refused, and every stored file is served under a sandboxing CSP, with
// anything but passive media as an attachment (src/files/servePolicy.ts).

const SHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/screenshots');

/** What the attacker's SVG does when its script runs: marks itself, then makes the reader a key. */
const EVIL_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="240" viewBox="0 0 640 240">
  <rect width="640" height="240" fill="#f4f1ea"/>
  <circle cx="90" cy="120" r="60" fill="#d9480f"/>
  <text id="marker" x="180" y="110" font-family="sans-serif" font-size="28" fill="#222">script did not run</text>
  <text x="180" y="150" font-family="sans-serif" font-size="16" fill="#555">an uploaded SVG, served sandboxed (no script on this origin)</text>
  <script>
    document.getElementById('marker').textContent = 'SCRIPT RAN';
    document.title = 'pwned';
    fetch('/settings/api-keys').then((r) => r.text()).then((page) => {
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page)[1];
      return fetch('/settings/api-keys', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, label: 'pwned', perMinute: '10000' }) });
    });
  </script>
</svg>`;

let srv: TestServer;
let alice: { email: string; key: string; accountId: string };
let bob: { email: string; key: string; accountId: string };

/** Every key of the service (the script would add one named "pwned" for whoever opens the link). */
async function keyLabels(): Promise<string[]> {
  return (await srv.services.db.query(`SELECT label FROM api_keys ORDER BY id`)).rows.map((x) => x.label as string);
}

/** A stored SVG with a script, as a model's output or an older upload could be. */
async function storedSvg(): Promise<string> {
  const file = await srv.services.files.save(srv.services.db.pool, alice.accountId, { kind: 'file', data: Buffer.from(EVIL_SVG), contentType: 'image/svg+xml', filename: 'cat.svg' }, null);
  return (await srv.services.files.view(file)).url;
}

before(async () => {
  srv = await startTestServer();
  alice = await srv.user({ email: `alice-svg-${process.pid}@example.com` });
  bob = await srv.user({ email: `bob-svg-${process.pid}@example.com` });
});
after(async () => {
  await srv?.close();
});

// Issue 26, finding 1.
describe('stored files never run as active content', () => {
  test('the policy: passive media inline, everything else an attachment; script-capable types recognised', () => {
    for (const t of ['image/png', 'image/jpeg', 'image/webp', 'audio/wav', 'video/mp4', 'text/plain']) assert.ok(servedInline(t), t);
    for (const t of ['image/svg+xml', 'text/html', 'application/xhtml+xml', 'text/xml', 'application/xml', 'application/pdf', 'application/octet-stream', 'image/SVG+XML; charset=utf-8']) {
      assert.ok(!servedInline(t), t);
      assert.match(contentDisposition(t, 'x.svg'), /^attachment; filename="x.svg"$/);
    }
    for (const t of ['image/svg+xml', 'text/html', 'application/xhtml+xml', 'image/svg', 'text/xml', 'application/pdf']) assert.ok(scriptCapable(t), t);
    for (const t of ['image/png', 'image/jpeg', 'audio/mpeg', 'video/webm']) assert.ok(!scriptCapable(t), t);
  });

  test('the reproduction: Alice\'s SVG upload is refused; a stored SVG\'s signed link is a sandboxed attachment', async () => {
    const web = new WebClient(srv.url);
    const signIn = await web.signIn(alice.email, 'correct horse battery');
    assert.equal(signIn.status, 303, signIn.text.slice(0, 200));
    const csrf = await web.csrf('/workflows/new');
    const up = await fetch(`${srv.url}/editor/files`, {
      method: 'POST', body: EVIL_SVG,
      headers: { cookie: [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'image/svg+xml', 'x-csrf-token': csrf, origin: srv.url, accept: 'application/json' },
    });
    const body = await up.json() as { code?: string };
    assert.equal(up.status, 415, JSON.stringify(body));
    assert.equal(body.code, 'UNSUPPORTED_MEDIA_TYPE');

    const url = await storedSvg();
    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-security-policy'), "sandbox; default-src 'none'");
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment/);
    await res.arrayBuffer();
    // A passive image keeps showing inline, under the same CSP.
    const png = await srv.services.files.save(srv.services.db.pool, alice.accountId, { kind: 'file', data: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64'), contentType: 'image/png' }, null);
    const shown = await srv.request('GET', `/v1/files/${png.id}`, { key: alice.key });
    assert.equal(shown.headers.get('content-disposition'), 'inline');
    assert.equal(shown.headers.get('content-security-policy'), "sandbox; default-src 'none'");
  });
});

describe('in Chromium: a signed-in victim opening the SVG link runs no script', { timeout: 180_000, skip: noChromium }, () => {
  let handle: OpenBrowser | undefined;
  after(async () => handle?.close());

  test('opened as a link it downloads; rendered inline anyway its script is blocked; Bob has no new key', async () => {
    const errors: string[] = [];
    handle = await openBrowser(errors);
    const { page } = handle;
    await page.goto(`${srv.url}/login`);
    await page.fill('#email', bob.email);
    await page.fill('#password', 'correct horse battery');
    await Promise.all([page.waitForURL(/\/runs$/), page.press('#password', 'Enter')]);
    const before = await keyLabels();
    const url = await storedSvg();

    // 1. Bob follows the link: the browser downloads the file instead of opening it as a document.
    const download = page.waitForEvent('download');
    await page.goto(url).catch((err: Error) => assert.match(err.message, /Download is starting|net::ERR_ABORTED/));
    const got = await download;
    assert.equal(got.suggestedFilename(), 'cat.svg');
    await got.cancel();

    // 2. Even if something between us and Bob dropped Content-Disposition (a proxy, an old client), the
    // CSP alone keeps the document script-free: the same answer, without that header, rendered.
    await page.route(url, async (route) => {
      const real = await route.fetch();
      const headers = { ...real.headers() };
      delete headers['content-disposition'];
      await route.fulfill({ response: real, headers });
    });
    await page.goto(url);
    await page.locator('#marker').waitFor();
    assert.equal(await page.locator('#marker').textContent(), 'script did not run');
    assert.notEqual(await page.title(), 'pwned');
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, 'svg-sandboxed.png') });
    assert.ok(errors.some((e) => /sandboxed|allow-scripts|Content Security Policy/i.test(e)) || errors.length === 0, errors.join('\n'));

    // Bob's keys are what they were: the script never reached his session.
    assert.deepEqual(await keyLabels(), before);
    const pwned = await srv.services.db.query(`SELECT 1 FROM api_keys WHERE label = 'pwned'`);
    assert.equal(pwned.rowCount, 0);
  });
});
