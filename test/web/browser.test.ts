import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { noChromium, openBrowser, type OpenBrowser } from './chromium.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';

// The web app end to end in a real headless Chromium (Debian's `chromium`, driven by playwright-core).
// The server here runs the API only; the worker that executes runs starts in the middle of the live-graph
// test, so the run page is seen QUEUED first and must then move to COMPLETED by itself.
// ATELIER_SCREENSHOTS=1 also writes each page to docs/screenshots/ (for the README).

const SHOTS = process.env.ATELIER_SCREENSHOTS === '1' ? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/screenshots') : undefined;
const PASSWORD = 'correct horse battery';

let srv: TestServer;
let worker: TestServer | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let chromiumHandle: OpenBrowser | undefined;
let page: Page;
let user: { email: string; key: string; accountId: string };
const pageErrors: string[] = [];

async function shot(name: string): Promise<void> {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

async function api(pathname: string, key: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(srv.url + pathname, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${key}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

describe('the web app in Chromium', { timeout: 240_000, skip: noChromium }, () => {
  before(async () => {
    receiver = await startReceiver();
    srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' }, { role: 'api' });
    user = await srv.user({ email: `browser-${process.pid}@example.com` });
    ({ page } = chromiumHandle = await openBrowser(pageErrors));
  });

  after(async () => {
    await chromiumHandle?.close();
    await worker?.close();
    await srv?.close();
    await receiver?.close();
  });

  test('signing in with the keyboard lands on the page asked for', async () => {
    await page.goto(`${srv.url}/runs`);
    assert.match(page.url(), /\/login\?next=%2Fruns$/);
    await shot('login');
    await page.fill('#email', user.email);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(`${srv.url}/runs`), page.press('#password', 'Enter')]);
    assert.equal(await page.textContent('h1'), 'Runs');
  });

  test('a key created on the settings page is shown once and works against /v1/models', async () => {
    await page.goto(`${srv.url}/settings/api-keys`);
    await page.fill('#label', 'from the browser');
    await page.fill('#perMinute', '30');
    await page.click('button:has-text("Create key")');
    await page.waitForSelector('#new-key');
    assert.match(await page.textContent('.created-key') ?? '', /you will not see it again/);
    const key = await page.inputValue('#new-key');
    assert.match(key, /^gx_[0-9A-Za-z]{40}$/);
    assert.equal((await api('/v1/models', key)).status, 200);
    const row = page.locator('tr', { hasText: 'from the browser' });
    assert.equal((await row.locator('.badge[class*="badge-"]').textContent())?.trim(), 'Active');
    assert.match(await row.textContent() ?? '', new RegExp(`${key.slice(0, 11)}…`), 'the prefix is listed, not the key');
    // Back on the page, the key is gone from it for good.
    await page.goto(`${srv.url}/settings/api-keys`);
    assert.equal(await page.locator('#new-key').count(), 0);
    assert.ok(!(await page.content()).includes(key));
  });

  test('a key whose expiry has passed shows the Expired badge and is refused by the API', async () => {
    await page.goto(`${srv.url}/settings/api-keys`);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await page.fill('#label', 'short-lived');
    await page.fill('#expiresOn', tomorrow);
    await page.click('button:has-text("Create key")');
    const key = await page.inputValue('#new-key');
    assert.equal((await api('/v1/credits/balance', key)).status, 200);
    // Move the expiry into the past rather than wait for it.
    await srv.services.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 minute' WHERE label = 'short-lived'`);
    await page.goto(`${srv.url}/settings/api-keys`);
    const row = page.locator('tr', { hasText: 'short-lived' });
    assert.equal((await row.locator('.badge[class*="badge-"]').textContent())?.trim(), 'Expired');
    assert.equal(await row.getAttribute('data-state'), 'expired');
    assert.equal((await api('/v1/credits/balance', key)).status, 401);
  });

  test('revoking asks first, takes effect at once, and the API answers 401', async () => {
    await page.goto(`${srv.url}/settings/api-keys`);
    await page.fill('#label', 'to revoke');
    await page.click('button:has-text("Create key")');
    const key = await page.inputValue('#new-key');
    assert.equal((await api('/v1/models', key)).status, 200);
    await page.goto(`${srv.url}/settings/api-keys`);
    const row = page.locator('tr', { hasText: 'to revoke' });

    // Cancel keeps the key.
    await row.locator('button:has-text("Revoke")').click();
    const dialog = page.locator('dialog.confirm');
    await dialog.waitFor({ state: 'visible' });
    assert.match(await dialog.textContent() ?? '', /Revoke the key “to revoke”\?/);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await api('/v1/models', key)).status, 200);

    await row.locator('button:has-text("Revoke")').click();
    await dialog.waitFor({ state: 'visible' });
    await Promise.all([page.waitForURL(/done=revoked/), dialog.locator('button.confirm-button').click()]);
    assert.match(await page.textContent('.notice') ?? '', /Key revoked/);
    assert.equal((await page.locator('tr', { hasText: 'to revoke' }).locator('.badge[class*="badge-"]').textContent())?.trim(), 'Revoked');
    const refused = await api('/v1/models', key);
    assert.equal(refused.status, 401);
    assert.equal(refused.body.code, 'UNAUTHORIZED');
    await shot('api-keys');
  });

  test('a system workflow run from the API: its graph on the run page goes from QUEUED to COMPLETED live, then cached on a re-run', async () => {
    const started = await api('/v1/runs', user.key, { method: 'POST', body: { workflowId: 'narrated-waveform', values: {}, webhook: { url: receiver.url() } } });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const runId = started.body.runId as string;
    await page.goto(`${srv.url}/runs/${runId}`);
    await page.waitForFunction(() => (window as any).atelierGraph !== undefined);
    // No worker yet: the run waits in the queue, and the page says so.
    assert.equal(await page.getAttribute('.run', 'data-run-status'), 'QUEUED');
    const statuses = () => page.evaluate(() => (window as any).atelierGraph.nodes().map((n: any) => `${n.id()}:${n.data('status')}`).sort());
    assert.deepEqual(await statuses(), ['request:QUEUED', 'response:PENDING', 'speech:PENDING', 'video:PENDING']);

    worker = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' }, { role: 'all', databaseUrl: srv.databaseUrl, dataDir: srv.dataDir });
    await page.waitForSelector('.run[data-run-status="COMPLETED"]', { timeout: 90_000 });
    await page.waitForFunction(() => (window as any).atelierRun?.done === true);
    assert.deepEqual(await statuses(), ['request:COMPLETED', 'response:COMPLETED', 'speech:COMPLETED', 'video:COMPLETED']);
    const live = await page.evaluate(() => (window as any).atelierRun);
    assert.ok(live.updates >= 1, `the page changed ${live.updates} times without a reload`);
    assert.equal((await page.textContent('#run-status'))?.trim(), 'COMPLETED');
    assert.equal(await page.locator('#outputs video').count(), 1, 'the video is playable on the page');
    assert.equal(await page.locator('#outputs audio').count(), 1, 'the speech is playable on the page');
    const duration = await page.locator('#outputs video').evaluate((v: HTMLVideoElement) => new Promise<number>((resolve, reject) => {
      if (v.readyState >= 1) return resolve(v.duration);
      v.addEventListener('loadedmetadata', () => resolve(v.duration), { once: true });
      v.addEventListener('error', () => reject(new Error(`the video did not load: ${v.error?.message ?? v.error?.code}`)), { once: true });
      setTimeout(() => reject(new Error('no video metadata after 20 s')), 20_000);
    }));
    assert.ok(duration > 0, 'the browser loaded the video from its signed URL');
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot('run');

    // The same values again: every node comes from the node cache and is marked so.
    const again = await api('/v1/runs', user.key, { method: 'POST', body: { workflowId: 'narrated-waveform', values: {} } });
    await page.goto(`${srv.url}/runs/${again.body.runId}`);
    await page.waitForSelector('.run[data-run-status="COMPLETED"]', { timeout: 60_000 });
    await page.waitForFunction(() => (window as any).atelierRun === undefined || (window as any).atelierRun.done === true);
    await page.reload();
    const cached = await page.evaluate(() => (window as any).atelierGraph.nodes().filter((n: any) => n.data('cached')).map((n: any) => n.id()).sort());
    assert.deepEqual(cached, ['speech', 'video']);
    assert.equal(await page.locator('#node-table .cached-badge').count(), 2);
  });

  test('the other pages render for the signed-in user', async () => {
    await receiver.waitFor((all) => all.some((r) => r.json?.type === 'run.completed'));
    await page.goto(`${srv.url}/runs`);
    assert.ok(await page.locator('tbody tr').count() >= 2);
    await shot('runs');
    await page.goto(`${srv.url}/credits`);
    assert.match(await page.textContent('#balance-formatted') ?? '', /^\d+\.\d\dM$/);
    await shot('credits');
    await page.goto(`${srv.url}/workflows`);
    assert.equal(await page.locator('.system-workflow').count(), 5);
    await shot('workflows');
    await page.goto(`${srv.url}/workflows/sound-scene`);
    await page.waitForFunction(() => (window as any).atelierGraph?.nodes().length === 5);
    await Promise.all([page.waitForURL(/done=duplicated/), page.click('button:has-text("Duplicate")')]);
    assert.match(await page.textContent('h1') ?? '', /Sound scene \(copy\)/);
    await page.waitForFunction(() => (window as any).atelierGraph?.nodes().length === 5);
    await shot('workflow');
    await page.goto(`${srv.url}/settings/webhooks`);
    assert.ok(await page.locator('tbody tr').count() >= 1, 'the run\'s deliveries are in the log');
    await shot('webhooks');
  });

  test('no page logged a script error or a blocked resource', () => {
    assert.deepEqual(pageErrors, []);
  });
});
