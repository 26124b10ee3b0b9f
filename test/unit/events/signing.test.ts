import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { deliveryHeaders, generateSecret, sign, verify } from '../../../src/events/signing.js';
import { delayBeforeAttempt } from '../../../src/events/retrySchedule.js';
import { parseSchedule, DEFAULT_SCHEDULE } from '../../../src/config.js';

const body = JSON.stringify({ type: 'run.completed', runId: 'run_1', data: { status: 'COMPLETED' } });

test('our signatures verify with the standardwebhooks and svix libraries', () => {
  const secret = generateSecret();
  const ts = Math.floor(Date.now() / 1000);
  const headers = deliveryHeaders([secret], 'evt_1', ts, body);
  assert.deepEqual(new StandardWebhook(secret).verify(body, headers), JSON.parse(body));
  assert.deepEqual(new SvixWebhook(secret).verify(body, { 'svix-id': headers['svix-id']!, 'svix-timestamp': headers['svix-timestamp']!, 'svix-signature': headers['svix-signature']! }), JSON.parse(body));
  assert.ok(verify(secret, headers, body));
});

test('the libraries\' signatures are byte-identical to ours', () => {
  const secret = generateSecret();
  const ts = 1_700_000_000;
  const theirs = new StandardWebhook(secret).sign('evt_x', new Date(ts * 1000), body);
  assert.equal(sign(secret, 'evt_x', ts, body), theirs);
});

test('any changed byte, another secret, or a stale timestamp fails verification', () => {
  const secret = generateSecret();
  const ts = Math.floor(Date.now() / 1000);
  const headers = deliveryHeaders([secret], 'evt_2', ts, body);
  for (let i = 0; i < body.length; i += 7) {
    const tampered = body.slice(0, i) + String.fromCharCode(body.charCodeAt(i) ^ 1) + body.slice(i + 1);
    assert.ok(!verify(secret, headers, tampered));
    assert.throws(() => new StandardWebhook(secret).verify(tampered, headers));
  }
  assert.ok(!verify(generateSecret(), headers, body));
  assert.ok(!verify(secret, { ...headers, 'webhook-id': 'evt_3' }, body));
  const old = deliveryHeaders([secret], 'evt_2', ts - 3600, body);
  assert.ok(!verify(secret, old, body));
  assert.throws(() => new StandardWebhook(secret).verify(body, old));
});

test('during a rotation both secrets sign and either verifies', () => {
  const oldS = generateSecret();
  const newS = generateSecret();
  const ts = Math.floor(Date.now() / 1000);
  const headers = deliveryHeaders([newS, oldS], 'evt_4', ts, body);
  assert.equal(headers['webhook-signature']!.split(' ').length, 2);
  assert.ok(verify(oldS, headers, body));
  assert.ok(verify(newS, headers, body));
  new StandardWebhook(oldS).verify(body, headers);
  new SvixWebhook(newS).verify(body, headers as never);
});

test('retry schedule: default, parsed, jittered within ±10 %, exhausted after the last', () => {
  assert.deepEqual(parseSchedule(undefined), DEFAULT_SCHEDULE);
  assert.deepEqual(parseSchedule('0,1,1,1'), [0, 1, 1, 1]);
  assert.throws(() => parseSchedule('0,soon'));
  assert.equal(delayBeforeAttempt([0, 5, 300], 1), 0);
  for (let i = 0; i < 100; i++) {
    const d = delayBeforeAttempt([0, 300], 2)!;
    assert.ok(d >= 270 && d <= 330);
  }
  assert.equal(delayBeforeAttempt([0, 5], 3), undefined);
});
