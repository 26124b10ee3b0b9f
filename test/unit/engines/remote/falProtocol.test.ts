import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createMediaFetcher } from '../../../../src/engines/media.js';
import { createFalEngine, type FalSettings } from '../../../../src/engines/remote/fal.js';
import { EngineError, type FileOutput } from '../../../../src/engines/types.js';
import { testContext } from '../../../helpers/engineContext.js';
import { startFalFake, type FalFake } from '../../../helpers/providers/fal.js';
import { makePng } from '../../../helpers/providers/media.js';
import { dataUrl } from '../../../helpers/engineContext.js';

/** The fal adapter against its fake, for the provider findings of issue 28. */
const KEY = 'fal-key-id:fal-key-secret-unit-01';
let fake: FalFake;
before(async () => {
  fake = await startFalFake(KEY);
});
after(() => fake.close());

const fast = { retries: 3, baseDelayMs: 5, maxDelayMs: 200, requestTimeoutMs: 5000 };
const settings = (o: Partial<FalSettings> = {}): FalSettings => ({
  apiKey: KEY, queueUrl: `${fake.url}/queue`, baseUrl: `${fake.url}/run`, storageUrl: fake.url, allowPrivate: true, retry: fast, pollIntervalMs: 5, maxPollIntervalMs: 20, ...o,
});
function run(input: Record<string, unknown>, options: Record<string, unknown>, o: Partial<FalSettings> = {}) {
  const t = testContext();
  after(t.cleanup);
  t.ctx.fetchMedia = createMediaFetcher({ allowPrivate: true, maxBytes: 50e6, timeoutMs: 30_000 });
  return createFalEngine(settings(o)).execute({ nodeType: 'x', subModelId: 'x', input, options }, t.ctx);
}

test('finding 4: a file that is not the image the binding outputs fails the run (checked by its bytes, not its claimed type)', async () => {
  await assert.rejects(run({ prompt: 'a fox' }, { model: 'fal-ai/not-an-image', expect: 'image' }), (err: Error) => {
    assert.ok(err instanceof EngineError, String(err));
    assert.match(err.message, /not image/);
    return true;
  });
  const ok = await run({ prompt: 'a fox' }, { model: 'fal-ai/flux-pro/v1.1', expect: 'image' });
  assert.equal((ok.result as FileOutput[])[0]!.contentType, 'image/png');
});

test('finding 7: a failed job\'s result (HTTP 500) is fal\'s error, fetched once — not five retries and "gave up"', async () => {
  const before = fake.calls.length;
  await assert.rejects(run({ prompt: 'x' }, { model: 'fal-ai/oom' }), (err: Error) => {
    assert.match(err.message, /CUDA out of memory/);
    assert.doesNotMatch(err.message, /gave up/);
    return true;
  });
  const results = fake.calls.slice(before).filter((c) => c.method === 'GET' && /\/requests\/[^/]+$/.test(c.path));
  assert.equal(results.length, 1);
});

test('finding 7: a status fal\'s client does not know keeps the job polled, as fal\'s client does', async () => {
  fake.inject('GET', /^\/queue\/fal-ai\/flux-pro\/requests\/[^/]+\/status$/, { status: 202, json: { status: 'STARTING_WORKER' } });
  const out = await run({ prompt: 'a fox' }, { model: 'fal-ai/flux-pro/v1.1' });
  assert.equal((out.result as FileOutput[]).length, 1);
});

test('finding 7: workflows/ and comfy/ ids poll under namespace/owner/alias when the submit answer names no URLs', async () => {
  const a = await run({ prompt: 'x' }, { model: 'workflows/acme/upscale-flow' });
  assert.equal((a.result as FileOutput[]).length, 1);
  assert.ok(fake.calls.some((c) => /^\/queue\/workflows\/acme\/upscale-flow\/requests\/[^/]+\/status$/.test(c.path)));
  const b = await run({ prompt: 'x' }, { model: 'comfy/acme/portrait/v2' });
  assert.equal((b.result as FileOutput[]).length, 1);
  assert.ok(fake.calls.some((c) => /^\/queue\/comfy\/acme\/portrait\/requests\/[^/]+$/.test(c.path)));
});

test('finding 6: the paid submit is not repeated on HTTP 500 (the job may have started)', async () => {
  const subs = () => fake.callsTo('POST', /^\/queue\/fal-ai\/flux-pro\/v1\.1$/).length;
  const before = subs();
  fake.inject('POST', /^\/queue\/fal-ai\/flux-pro\/v1\.1$/, { status: 500, json: { detail: 'Internal Server Error' } });
  await assert.rejects(run({ prompt: 'a fox' }, { model: 'fal-ai/flux-pro/v1.1' }), /HTTP 500/);
  assert.equal(subs() - before, 1);
});

test('finding 6: 429 and the gateway errors fal\'s client retries (502, 503, 504) are retried', async () => {
  const subs = () => fake.callsTo('POST', /^\/queue\/fal-ai\/flux-pro\/v1\.1$/).length;
  const before = subs();
  fake.inject('POST', /^\/queue\/fal-ai\/flux-pro\/v1\.1$/, { status: 429, json: { detail: 'slow down' } }, { status: 503, body: '' });
  const out = await run({ prompt: 'a fox' }, { model: 'fal-ai/flux-pro/v1.1' });
  assert.equal((out.result as FileOutput[]).length, 1);
  assert.equal(subs() - before, 3);
});

test('finding 6: a submit fal accepted but whose answer timed out starts no second job, and the run fails saying so', async () => {
  const jobsBefore = fake.jobs.size;
  fake.inject('POST', /^\/queue\/fal-ai\/flux-pro\/v1\.1$/, { passThrough: true, hang: true });
  await assert.rejects(run({ prompt: 'a fox' }, { model: 'fal-ai/flux-pro/v1.1' }, { retry: { ...fast, requestTimeoutMs: 800 } }), (err: Error) => {
    assert.ok(err instanceof EngineError);
    assert.equal(err.retryable, false, 'a retry of the run would pay twice');
    assert.match(err.message, /not submitted again/);
    return true;
  });
  assert.equal(fake.jobs.size - jobsBefore, 1);
});

test('finding 5: media go to fal as URLs its storage serves (upload initiated, bytes PUT), never as inline data: URIs', async () => {
  const big = Buffer.concat([makePng(8, 8), Buffer.alloc(2_000_000)]);
  const out = await run({ prompt: 'x', image_url: dataUrl(big, 'image/png') }, { model: 'fal-ai/flux-pro/v1.1' });
  assert.equal((out.result as FileOutput[]).length, 1);
  const submit = fake.callsTo('POST', /^\/queue\/fal-ai\/flux-pro\/v1\.1$/).at(-1)!.json();
  assert.match(submit.image_url, /^http:\/\/127\.0\.0\.1:\d+\/cdn\//);
  assert.deepEqual(fake.cdn.get(submit.image_url.split('/cdn/').pop()), { type: 'image/png', data: big });
  const init = fake.callsTo('POST', /^\/storage\/upload\/initiate$/).at(-1)!;
  assert.equal(init.headers.authorization, `Key ${KEY}`);
  assert.equal(init.json().content_type, 'image/png');
  assert.ok(!JSON.stringify(submit).includes('data:'));
});

test('finding 6: a submit fal accepted whose connection then dropped starts no second job; the run fails saying so (fal has no way to find it)', async () => {
  const jobsBefore = fake.jobs.size;
  const subs = () => fake.callsTo('POST', /^\/queue\/fal-ai\/flux-pro\/v1\.1$/).length;
  const before = subs();
  fake.inject('POST', /^\/queue\/fal-ai\/flux-pro\/v1\.1$/, { passThrough: true, drop: true });
  await assert.rejects(run({ prompt: 'a fox cut off' }, { model: 'fal-ai/flux-pro/v1.1' }), (err: Error) => {
    assert.ok(err instanceof EngineError);
    assert.equal(err.retryable, false);
    assert.match(err.message, /not submitted again/);
    return true;
  });
  assert.equal(fake.jobs.size - jobsBefore, 1, 'exactly one job started at fal');
  assert.equal(subs() - before, 1);
});
