import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createMediaFetcher } from '../../../../src/engines/media.js';
import { createReplicateEngine, type ReplicateSettings } from '../../../../src/engines/remote/replicate.js';
import { EngineError, EngineInputError, type FileOutput } from '../../../../src/engines/types.js';
import { dataUrl, testContext } from '../../../helpers/engineContext.js';
import { makePng } from '../../../helpers/providers/media.js';
import { SDXL_VERSION, startReplicateFake, type ReplicateFake } from '../../../helpers/providers/replicate.js';

const TOKEN = 'r8_fake_token_0123456789';
let fake: ReplicateFake;
before(async () => {
  fake = await startReplicateFake(TOKEN);
});
after(() => fake.close());

const fast = { retries: 3, baseDelayMs: 5, maxDelayMs: 3000, requestTimeoutMs: 2000 };
function run(input: Record<string, unknown>, options: Record<string, unknown>, o: Partial<ReplicateSettings> = {}, ctxOpts: Parameters<typeof testContext>[0] = {}) {
  const t = testContext(ctxOpts);
  after(t.cleanup);
  t.ctx.fetchMedia = createMediaFetcher({ allowPrivate: true, maxBytes: 1e6, timeoutMs: 1000 });
  const engine = createReplicateEngine({ apiToken: TOKEN, baseUrl: `${fake.url}/v1`, allowPrivate: true, retry: fast, pollIntervalMs: 5, maxPollIntervalMs: 20, ...o });
  return { t, p: engine.execute({ nodeType: 'x', subModelId: 'x', input, options }, t.ctx) };
}

test('unconfigured: unavailable, "set REPLICATE_API_TOKEN"', async () => {
  const e = createReplicateEngine({});
  assert.equal(e.id, 'replicate');
  assert.deepEqual(await e.availability(), { available: false, reason: 'set REPLICATE_API_TOKEN to run models on Replicate' });
});

test('official model: create, starting → processing → succeeded, output URL downloaded', async () => {
  const { t, p } = run({ prompt: 'a sunflower', aspect_ratio: '1:1' }, { model: 'black-forest-labs/flux-1.1-pro', params: { output_format: 'png' } });
  const out = await p;
  const f = (out.result as FileOutput[])[0]!;
  assert.equal(f.contentType, 'image/png');
  assert.deepEqual(f.data, makePng(12, 12, [250, 200, 0]));
  const create = fake.callsTo('POST', /\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions/).at(-1)!;
  assert.deepEqual(create.json(), { input: { output_format: 'png', prompt: 'a sunflower', aspect_ratio: '1:1' } });
  assert.equal(create.headers.authorization, `Bearer ${TOKEN}`);
  assert.ok(t.progress.some(([, m]) => m === 'starting on Replicate'));
  assert.ok(t.progress.some(([f, m]) => m === 'running on Replicate' && f > 0.1), 'progress read from the tqdm log line');
});

test('model version: list output, several files; input renamed by the binding', async () => {
  const out = await run({ prompt: 'x', num_images: 3 }, { version: `stability-ai/sdxl:${SDXL_VERSION}`, inputMap: { num_images: 'num_outputs' } }).p;
  assert.equal((out.result as FileOutput[]).length, 3);
  const create = fake.callsTo('POST', /^\/v1\/predictions$/).at(-1)!;
  assert.deepEqual(create.json(), { version: SDXL_VERSION, input: { prompt: 'x', num_outputs: 3 } });
});

test('text output: streamed tokens joined', async () => {
  const out = await run({ prompt: 'world', max_tokens: 10 }, { model: 'meta/meta-llama-3-8b-instruct', output: 'text' }).p;
  assert.deepEqual(out.output, { kind: 'text', text: 'Hello, world' });
});

test('Prefer: wait — a quick model finishes in the create request, no polling', async () => {
  const polls = fake.callsTo('GET', /^\/v1\/predictions\//).length;
  const out = await run({ prompt: 'x' }, { model: 'acme/fast', wait: 30 }).p;
  assert.equal((out.result as FileOutput[])[0]!.contentType, 'image/png');
  assert.equal(fake.callsTo('POST', /acme\/fast/).at(-1)!.headers.prefer, 'wait=30');
  assert.equal(fake.callsTo('GET', /^\/v1\/predictions\//).length, polls);
});

test('media inputs go as data: URIs', async () => {
  const png = makePng(3, 3);
  await run({ prompt: 'x', image_url: dataUrl(png, 'image/png') }, { model: 'acme/fast' }).p;
  assert.equal(fake.callsTo('POST', /acme\/fast/).at(-1)!.json().input.image_url, `data:image/png;base64,${png.toString('base64')}`);
});

test('retries 429 (Retry-After) and 5xx', async () => {
  fake.inject('POST', /predictions$/, { status: 429, headers: { 'retry-after': '0' }, json: { title: 'Request was throttled.', detail: 'Request was throttled. Expected available in 1 second.', status: 429 } });
  fake.inject('GET', /^\/v1\/predictions\//, { status: 502, body: 'Bad Gateway' }, { status: 500, json: { title: 'Internal Server Error', detail: 'oops', status: 500 } });
  const out = await run({ prompt: 'x' }, { model: 'black-forest-labs/flux-1.1-pro' }).p;
  assert.equal((out.result as FileOutput[]).length, 1);
});

test('failures: prediction failed, validation, unknown version, bad token — clear messages, no token', async () => {
  await assert.rejects(run({ prompt: 'x' }, { model: 'acme/broken' }).p, (e: Error) => e instanceof EngineError && /^Replicate prediction \w+ failed: CUDA error: out of memory$/.test(e.message));
  await assert.rejects(run({}, { model: 'black-forest-labs/flux-1.1-pro' }).p, (e: Error) => e instanceof EngineInputError && e.message === 'Replicate rejected the input (HTTP 422): - input.prompt: prompt is required');
  await assert.rejects(run({ prompt: 'x' }, { version: 'f'.repeat(64) }).p, /rejected the input \(HTTP 422\): The specified version does not exist/);
  await assert.rejects(run({ prompt: 'x' }, { model: 'acme/missing' }).p, /Replicate answered not found \(HTTP 404\) for \/v1\/models\/acme\/missing\/predictions: The requested resource could not be found\./);
  await assert.rejects(run({ prompt: 'x' }, { model: 'acme/fast' }, { apiToken: 'r8_wrong_wrong_wrong' }).p, (e: Error) => {
    assert.equal(e.message, 'Replicate refused the credentials (HTTP 401): You did not pass a valid authentication token; check REPLICATE_API_TOKEN');
    return true;
  });
  await assert.rejects(run({ prompt: 'x' }, {}).p, /needs options\.version or options\.model/);
});

test('cancel on abort: POST /predictions/{id}/cancel', async () => {
  const ctl = new AbortController();
  const created = fake.predictions.size;
  const { p } = run({ prompt: 'x' }, { model: 'acme/slow' }, {}, { signal: ctl.signal });
  // abort once the prediction exists (a fixed delay could fall before the create on a loaded machine)
  while (fake.predictions.size === created) await new Promise((r) => setTimeout(r, 5));
  ctl.abort(new Error('user canceled'));
  await assert.rejects(p, /user canceled/);
  const cancels = fake.callsTo('POST', /^\/v1\/predictions\/[^/]+\/cancel$/);
  assert.equal(cancels.length, 1);
  const id = cancels[0]!.path.split('/')[3]!;
  assert.equal(fake.predictions.get(id)!.status, 'canceled');
});

test('deadline: the prediction is canceled and the run fails with a time-out', async () => {
  const before = fake.callsTo('POST', /cancel$/).length;
  await assert.rejects(run({ prompt: 'x' }, { model: 'acme/slow' }, {}, { timeoutMs: 1500 }).p, (e: Error) => e instanceof EngineError && /Replicate model acme\/slow did not finish within the run's time limit/.test(e.message));
  assert.equal(fake.callsTo('POST', /cancel$/).length - before, 1);
  // a hung poll is retried after the per-request time-out
  fake.inject('GET', /^\/v1\/predictions\//, { hang: true });
  const out = await run({ prompt: 'x' }, { model: 'black-forest-labs/flux-1.1-pro' }, { retry: { ...fast, requestTimeoutMs: 100 } }).p;
  assert.equal((out.result as FileOutput[]).length, 1);
});
