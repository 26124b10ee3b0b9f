import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { deliveryHeaders, generateSecret, sign, signatureHeader } from '../../src/events/signing.js';
import { verifyWebhook, WebhookVerificationError } from '../../packages/sdk/src/index.js';

/** verifyWebhook against signatures made by the server's own signing code. */
const secret = generateSecret();
const now = Math.floor(Date.now() / 1000);
const body = JSON.stringify({ success: true, type: 'run.completed', runId: 'run_1', workflowId: '', data: { status: 'COMPLETED' }, metadata: null, error: null, createdAt: new Date().toISOString() });
const fails = (fn: () => unknown, pattern: RegExp) => assert.throws(fn, (e: unknown) => e instanceof WebhookVerificationError && pattern.test(e.message));

describe('verifyWebhook', () => {
  test('a valid delivery returns the parsed payload (string, bytes, Headers, svix and hook names)', () => {
    const headers = deliveryHeaders([secret], 'evt_1', now, body);
    assert.equal(verifyWebhook(body, headers, secret).runId, 'run_1');
    assert.equal(verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret).type, 'run.completed');
    const svixOnly = { 'svix-id': headers['svix-id'], 'svix-timestamp': headers['svix-timestamp'], 'svix-signature': headers['svix-signature'] };
    assert.equal(verifyWebhook(body, svixOnly, secret).runId, 'run_1');
    const hook = { 'Hook-Id': 'evt_1', 'Hook-Timestamp': String(now), 'Hook-Signature': sign(secret, 'evt_1', now, body) };
    assert.equal(verifyWebhook(body, hook, secret).runId, 'run_1');
  });

  test('a tampered body, id or wrong secret is rejected', () => {
    const headers = deliveryHeaders([secret], 'evt_1', now, body);
    fails(() => verifyWebhook(body.replace('COMPLETED', 'FAILED'), headers, secret), /signature/);
    fails(() => verifyWebhook(body, { ...headers, 'webhook-id': 'evt_2', 'svix-id': 'evt_2' }, secret), /signature/);
    fails(() => verifyWebhook(body, headers, generateSecret()), /signature/);
    fails(() => verifyWebhook(body, { ...headers, 'webhook-signature': 'v2,' + headers['webhook-signature']!.slice(3) }, secret), /signature/);
    fails(() => verifyWebhook(body, {}, secret), /missing/);
  });

  test('a stale or future timestamp is rejected; the tolerance is adjustable', () => {
    const old = now - 301;
    const headers = deliveryHeaders([secret], 'evt_1', old, body);
    fails(() => verifyWebhook(body, headers, secret), /tolerance/);
    assert.equal(verifyWebhook(body, headers, secret, { toleranceSeconds: 600 }).runId, 'run_1');
    fails(() => verifyWebhook(body, deliveryHeaders([secret], 'evt_1', now + 400, body), secret), /tolerance/);
    fails(() => verifyWebhook(body, { ...headers, 'webhook-timestamp': 'soon' }, secret), /timestamp/);
  });

  test('during a rotation the two-signature header verifies with either secret', () => {
    const rotated = generateSecret();
    const header = signatureHeader([rotated, secret], 'evt_9', now, body);
    assert.equal(header.split(' ').length, 2);
    const headers = { 'webhook-id': 'evt_9', 'webhook-timestamp': String(now), 'webhook-signature': header };
    assert.equal(verifyWebhook(body, headers, secret).runId, 'run_1');
    assert.equal(verifyWebhook(body, headers, rotated).runId, 'run_1');
    assert.equal(verifyWebhook(body, headers, [generateSecret(), rotated]).runId, 'run_1');
    fails(() => verifyWebhook(body, headers, generateSecret()), /signature/);
  });
});
