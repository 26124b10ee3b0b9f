import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createMediaFetcher } from '../../../../src/engines/media.js';
import { createReplicateEngine, type ReplicateSettings } from '../../../../src/engines/remote/replicate.js';
import { EngineError, type FileOutput } from '../../../../src/engines/types.js';
import { testContext } from '../../../helpers/engineContext.js';
import { startReplicateFake, type ReplicateFake } from '../../../helpers/providers/replicate.js';
import { makePng } from '../../../helpers/providers/media.js';
import { dataUrl } from '../../../helpers/engineContext.js';

/** The Replicate adapter against its fake, for the provider findings of issue 28. */
const TOKEN = 'r8_unit_token_0123456789';
let fake: ReplicateFake;
before(async () => {
  fake = await startReplicateFake(TOKEN);
});
after(() => fake.close());

const fast = { retries: 3, baseDelayMs: 5, maxDelayMs: 200, requestTimeoutMs: 5000 };
function run(input: Record<string, unknown>, options: Record<string, unknown>, o: Partial<ReplicateSettings> = {}) {
  const t = testContext();
  after(t.cleanup);
  t.ctx.fetchMedia = createMediaFetcher({ allowPrivate: true, maxBytes: 50e6, timeoutMs: 30_000 });
  return createReplicateEngine({ apiToken: TOKEN, baseUrl: `${fake.url}/v1`, allowPrivate: true, retry: fast, pollIntervalMs: 5, maxPollIntervalMs: 20, ...o }).execute({ nodeType: 'x', subModelId: 'x', input, options }, t.ctx);
}
const creates = () => fake.callsTo('POST', /^\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions$/).length;

test('finding 6: the create that starts paid work is not repeated on HTTP 500', async () => {
  const before = creates();
  fake.inject('POST', /^\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions$/, { status: 500, json: { title: 'Internal Server Error', status: 500 } });
  await assert.rejects(run({ prompt: 'a fox' }, { model: 'black-forest-labs/flux-1.1-pro' }), /HTTP 500/);
  assert.equal(creates() - before, 1);
});

test('finding 6: 429 is retried, as Replicate\'s client does', async () => {
  const before = creates();
  fake.inject('POST', /^\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions$/, { status: 429, headers: { 'retry-after': '0' }, json: { title: 'Too Many Requests', status: 429 } });
  const out = await run({ prompt: 'a fox' }, { model: 'black-forest-labs/flux-1.1-pro' });
  assert.equal((out.result as FileOutput[]).length, 1);
  assert.equal(creates() - before, 2);
});

test('finding 6: a create Replicate accepted but whose answer timed out is found by listing, not started twice', async () => {
  const before = fake.predictions.size;
  const createsBefore = creates();
  fake.inject('POST', /^\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions$/, { passThrough: true, hang: true });
  const out = await run({ prompt: 'a lone fox' }, { model: 'black-forest-labs/flux-1.1-pro' }, { retry: { ...fast, requestTimeoutMs: 800 } });
  assert.equal((out.result as FileOutput[]).length, 1);
  assert.equal(fake.predictions.size - before, 1, 'one prediction, adopted');
  assert.equal(creates() - createsBefore, 1);
  assert.ok(fake.callsTo('GET', /^\/v1\/predictions$/).length >= 1);
});

test('finding 6: when the listing does not show it, the run fails without a second create and is not retried', async () => {
  const createsBefore = creates();
  // The answer never comes and the prediction is not listed (e.g. not created after all): no blind resubmit.
  fake.inject('POST', /^\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions$/, { hang: true });
  await assert.rejects(run({ prompt: 'a fox never created' }, { model: 'black-forest-labs/flux-1.1-pro' }, { retry: { ...fast, requestTimeoutMs: 800 } }), (err: Error) => {
    assert.ok(err instanceof EngineError);
    assert.equal(err.retryable, false);
    assert.match(err.message, /not created again/);
    return true;
  });
  assert.equal(creates() - createsBefore, 1);
});

test('finding 5: an image up to 256 KB goes inline as a data: URL; a larger one through Replicate\'s files API as its URL', async () => {
  const small = Buffer.concat([makePng(8, 8), Buffer.alloc(100_000)]);
  const large = Buffer.concat([makePng(8, 8), Buffer.alloc(1_000_000)]);
  await run({ prompt: 'small', image_url: dataUrl(small, 'image/png') }, { model: 'black-forest-labs/flux-1.1-pro' });
  const a = fake.callsTo('POST', /^\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions$/).at(-1)!.json();
  assert.equal(a.input.image_url, dataUrl(small, 'image/png'));
  const uploads = fake.callsTo('POST', /^\/v1\/files$/).length;
  await run({ prompt: 'large', image_url: dataUrl(large, 'image/png') }, { model: 'black-forest-labs/flux-1.1-pro' });
  const b = fake.callsTo('POST', /^\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions$/).at(-1)!.json();
  assert.equal(fake.callsTo('POST', /^\/v1\/files$/).length - uploads, 1);
  assert.match(b.input.image_url, /^http:\/\/127\.0\.0\.1:\d+\/v1\/files\/[a-z0-9]+$/);
  const id = b.input.image_url.split('/').pop();
  assert.deepEqual(fake.uploads.get(id)!.data, large);
  assert.ok(!JSON.stringify(b).includes('data:'), 'no inline data past 256 KB');
});

test('finding 6: a create Replicate accepted whose connection then dropped is found and completes — one prediction, one create', async () => {
  const before = fake.predictions.size;
  const createsBefore = creates();
  fake.inject('POST', /^\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions$/, { passThrough: true, drop: true });
  const out = await run({ prompt: 'a fox whose answer was cut off' }, { model: 'black-forest-labs/flux-1.1-pro' });
  assert.equal((out.result as FileOutput[]).length, 1);
  assert.equal(fake.predictions.size - before, 1, 'exactly one prediction started at Replicate');
  assert.equal(creates() - createsBefore, 1);
});

test('finding 6: the lost prediction is found past the first page of the listing (pages followed by `next`)', async () => {
  fake.listPageSize = 2;
  try {
    const createsBefore = creates();
    // Others listed as newer than ours put it on a later page (the listing is newest first).
    const later = new Date(Date.now() + 60_000).toISOString();
    for (let i = 0; i < 5; i++) fake.predictions.get(await direct({ prompt: `someone else ${i}` }))!.created_at = later;
    const listed = fake.callsTo('GET', /^\/v1\/predictions$/).length;
    fake.inject('POST', /^\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions$/, { passThrough: true, drop: true });
    const out = await run({ prompt: 'a fox on page two' }, { model: 'black-forest-labs/flux-1.1-pro' });
    assert.equal(creates() - createsBefore, 6);
    assert.equal((out.result as FileOutput[]).length, 1);
    assert.ok(fake.callsTo('GET', /^\/v1\/predictions$/).slice(listed).some((c) => c.query.has('cursor')), 'a later page was read');
  } finally {
    fake.listPageSize = 100;
  }
});

test('finding 6: two predictions alike (another run of the same prompt) cannot be told apart: the run fails clearly, none adopted, none created again', async () => {
  const twin = await direct({ prompt: 'the same prompt twice' });
  const createsBefore = creates();
  const before = fake.predictions.size;
  fake.inject('POST', /^\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions$/, { passThrough: true, drop: true });
  await assert.rejects(run({ prompt: 'the same prompt twice' }, { model: 'black-forest-labs/flux-1.1-pro' }), (err: Error) => {
    assert.ok(err instanceof EngineError);
    assert.equal(err.retryable, false, 'a retry of the run would pay again');
    assert.match(err.message, /cannot be told/);
    assert.ok(err.message.includes(twin), err.message);
    return true;
  });
  assert.equal(creates() - createsBefore, 1);
  assert.equal(fake.predictions.size - before, 1);
});

/** A prediction created straight on the fake, as another client of the same account would. */
async function direct(input: Record<string, unknown>): Promise<string> {
  const r = await fetch(`${fake.url}/v1/models/black-forest-labs/flux-1.1-pro/predictions`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
  return ((await r.json()) as { id: string }).id;
}

test('finding 5: the inline limit is 256 KB read strictly: 256,000 bytes inline, one byte more through the files API', async () => {
  const at = (n: number) => Buffer.concat([makePng(8, 8), Buffer.alloc(n - makePng(8, 8).length)]);
  const uploads = fake.callsTo('POST', /^\/v1\/files$/).length;
  await run({ prompt: 'at the limit', image_url: dataUrl(at(256_000), 'image/png') }, { model: 'black-forest-labs/flux-1.1-pro' });
  const a = fake.callsTo('POST', /^\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions$/).at(-1)!.json();
  assert.match(a.input.image_url, /^data:image\/png;base64,/);
  await run({ prompt: 'past the limit', image_url: dataUrl(at(256_001), 'image/png') }, { model: 'black-forest-labs/flux-1.1-pro' });
  const b = fake.callsTo('POST', /^\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions$/).at(-1)!.json();
  assert.doesNotMatch(b.input.image_url, /^data:/);
  assert.equal(fake.callsTo('POST', /^\/v1\/files$/).length - uploads, 1);
});

test('finding 6: when the lookup itself fails, the run fails saying so, without a second create', async () => {
  const createsBefore = creates();
  fake.inject('POST', /^\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions$/, { passThrough: true, drop: true });
  fake.inject('GET', /^\/v1\/predictions$/, { status: 401, json: { title: 'Unauthenticated', detail: 'token revoked', status: 401 } });
  await assert.rejects(run({ prompt: 'a fox, lookup refused' }, { model: 'black-forest-labs/flux-1.1-pro' }), (err: Error) => {
    assert.ok(err instanceof EngineError);
    assert.equal(err.retryable, false);
    assert.match(err.message, /looking the prediction up failed too .*not created again/);
    return true;
  });
  assert.equal(creates() - createsBefore, 1);
});
