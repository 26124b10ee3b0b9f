import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createMediaFetcher } from '../../../../src/engines/media.js';
import { createFalEngine, type FalSettings } from '../../../../src/engines/remote/fal.js';
import { EngineError, EngineInputError, type FileOutput } from '../../../../src/engines/types.js';
import { dataUrl, testContext } from '../../../helpers/engineContext.js';
import { startFalFake, type FalFake } from '../../../helpers/providers/fal.js';
import { makeMp4Head, makePng, makeWav } from '../../../helpers/providers/media.js';

const KEY = 'fal-key-id:fal-key-secret-000111';
let fake: FalFake;
before(async () => {
  fake = await startFalFake(KEY);
});
after(() => fake.close());

const fast = { retries: 3, baseDelayMs: 5, maxDelayMs: 3000, requestTimeoutMs: 2000 };
const settings = (o: Partial<FalSettings> = {}): FalSettings => ({
  apiKey: KEY, queueUrl: `${fake.url}/queue`, baseUrl: `${fake.url}/run`, storageUrl: fake.url, allowPrivate: true, retry: fast, pollIntervalMs: 5, maxPollIntervalMs: 20, ...o,
});
function run(input: Record<string, unknown>, options: Record<string, unknown>, o: Partial<FalSettings> = {}, ctxOpts: Parameters<typeof testContext>[0] = {}) {
  const t = testContext(ctxOpts);
  after(t.cleanup);
  t.ctx.fetchMedia = createMediaFetcher({ allowPrivate: true, maxBytes: 1e6, timeoutMs: 1000 });
  return { t, p: createFalEngine(settings(o)).execute({ nodeType: 'x', subModelId: 'x', input, options }, t.ctx) };
}

test('unconfigured: unavailable, "set FAL_KEY"', async () => {
  const e = createFalEngine({});
  assert.equal(e.id, 'fal');
  assert.deepEqual(await e.availability(), { available: false, reason: 'set FAL_KEY to run models on fal.ai' });
  assert.equal((await createFalEngine({ apiKey: 'k' }).availability()).available, true);
});

test('queue: submit, IN_QUEUE → IN_PROGRESS → COMPLETED, result, real PNG bytes downloaded', async () => {
  const { t, p } = run({ prompt: 'a fox', num_images: 2, seed: 7 }, { model: 'fal-ai/flux-pro/v1.1', params: { output_format: 'png' } });
  const out = await p;
  const files = out.result as FileOutput[];
  assert.equal(files.length, 2);
  assert.equal(files[0]!.contentType, 'image/png');
  assert.deepEqual(files[1]!.data, makePng(16, 16, [40, 80, 160]));
  assert.equal(files[0]!.filename, 'result-1.png');
  // the request body the provider saw: our input plus the binding's fixed params
  const submit = fake.callsTo('POST', /^\/queue\/fal-ai\/flux-pro\/v1\.1$/).at(-1)!;
  assert.deepEqual(submit.json(), { output_format: 'png', prompt: 'a fox', num_images: 2, seed: 7 });
  assert.equal(submit.headers.authorization, `Key ${KEY}`);
  // status polled under the app id, with logs
  const polls = fake.calls.filter((c) => c.path.endsWith('/status'));
  assert.ok(polls.length >= 4);
  assert.ok(polls.every((c) => c.path.startsWith('/queue/fal-ai/flux-pro/requests/') && c.query.get('logs') === '1'));
  const messages = t.progress.map(([, m]) => m);
  assert.ok(messages.some((m) => /in fal queue \(position 0\)/.test(m ?? '')));
  assert.ok(messages.includes('running on fal'));
  assert.ok(t.progress.some(([f]) => f > 0.1 && f < 0.95), 'progress from the step logs');
});

test('video result ({ video: { url } }) and text result ({ text }) with media input uploaded to fal storage and sent as its URL', async () => {
  const v = await run({ prompt: 'waves', duration: 5 }, { model: 'fal-ai/kling-video/v2/master/text-to-video' }).p;
  const f = (v.result as FileOutput[])[0]!;
  assert.equal(f.contentType, 'video/mp4');
  assert.deepEqual(f.data, makeMp4Head());
  const wav = makeWav(0.05);
  const tx = await run({ audio_url: dataUrl(wav, 'audio/x-wav-claimed') }, { model: 'fal-ai/wizper', output: 'text' }).p;
  assert.deepEqual(tx.output, { kind: 'text', text: 'hello from fal' });
  // the adapter re-typed the media from its bytes before handing it on, as fal's client does: by storage URL (issue 28)
  const sent = fake.callsTo('POST', /wizper/).at(-1)!.json();
  assert.deepEqual(fake.cdn.get(sent.audio_url.split('/cdn/').pop()), { type: 'audio/wav', data: wav });
});

test('synchronous endpoint when the binding asks for it', async () => {
  const out = await run({ prompt: 'quick' }, { model: 'fal-ai/flux-pro/v1.1', sync: true }).p;
  assert.equal((out.result as FileOutput[]).length, 1);
  assert.equal(fake.callsTo('POST', /^\/run\/fal-ai\/flux-pro\/v1\.1$/).length, 1);
});

test('retries 429 with Retry-After and gateway 5xx on submit, and 5xx on status', async () => {
  // A submit is retried only where fal's client retries it (429, 502/503/504): a 500 may have started the job (issue 28).
  fake.inject('POST', /^\/queue\/fal-ai\/flux-pro/, { status: 429, headers: { 'retry-after': '0' }, json: { detail: 'Rate limit exceeded' } }, { status: 503, json: { detail: 'Service Unavailable' } });
  fake.inject('GET', /\/status$/, { status: 503, body: 'upstream connect error' });
  const before = fake.callsTo('POST', /^\/queue\/fal-ai\/flux-pro/).length;
  const out = await run({ prompt: 'retry me' }, { model: 'fal-ai/flux-pro/v1.1' }).p;
  assert.equal((out.result as FileOutput[]).length, 1);
  assert.equal(fake.callsTo('POST', /^\/queue\/fal-ai\/flux-pro/).length - before, 3);
});

test('a job that fails: validation details become an input error, a crash a clear engine error', async () => {
  await assert.rejects(run({ num_images: 1 }, { model: 'fal-ai/flux-pro/v1.1' }).p, (e: Error) => {
    assert.ok(e instanceof EngineInputError, String(e));
    assert.equal(e.message, 'fal rejected the input (HTTP 422): prompt: field required');
    return true;
  });
  await assert.rejects(run({ prompt: 'x' }, { model: 'fal-ai/oom' }, { retry: { ...fast, retries: 1 } }).p, (e: Error) => e instanceof EngineError && /fal failed \(HTTP 500\): CUDA out of memory/.test(e.message));
  await assert.rejects(run({ prompt: 'x' }, { model: 'fal-ai/empty' }).p, /fal finished but returned no output file/);
  await assert.rejects(run({ prompt: 'x' }, { model: 'fal-ai/nope' }).p, /not found \(HTTP 404\).*Application 'fal-ai\/nope' not found/);
  await assert.rejects(run({ prompt: 'x' }, { model: 'fal-ai/flux-pro/v1.1' }, { apiKey: 'wrong-key-123456' }).p, (e: Error) => {
    assert.match(e.message, /fal refused the credentials \(HTTP 401\): No user found for Key ID and Secret; check FAL_KEY/);
    assert.ok(!e.message.includes('wrong-key-123456'));
    return true;
  });
});

test('cancel: aborting the run sends PUT …/cancel and fails with the reason', async () => {
  const ctl = new AbortController();
  const jobs = fake.jobs.size;
  const { p } = run({ prompt: 'x' }, { model: 'fal-ai/slow' }, {}, { signal: ctl.signal });
  // abort once the job is polled (a fixed delay could fall before the submit's answer on a loaded machine)
  while (fake.jobs.size === jobs || !fake.calls.some((c) => c.path.startsWith('/queue/fal-ai/slow/requests/') && c.path.endsWith('/status') && c.path.includes([...fake.jobs.keys()].at(-1)!))) await new Promise((r) => setTimeout(r, 5));
  ctl.abort(new Error('canceled by the user'));
  await assert.rejects(p, /canceled by the user/);
  const cancels = fake.callsTo('PUT', /^\/queue\/fal-ai\/slow\/requests\/[^/]+\/cancel$/);
  assert.equal(cancels.length, 1);
  const id = cancels[0]!.path.split('/')[5]!;
  assert.equal(fake.jobs.get(id)!.canceled, true);
});

test('time-out: the run deadline cancels the fal job too', async () => {
  const before = fake.callsTo('PUT', /cancel$/).length;
  await assert.rejects(run({ prompt: 'x' }, { model: 'fal-ai/slow' }, {}, { timeoutMs: 1500 }).p, (e: Error) => e instanceof EngineError && /fal model fal-ai\/slow did not finish within the run's time limit/.test(e.message));
  assert.equal(fake.callsTo('PUT', /cancel$/).length - before, 1);
  // a hanging status request is cut by the per-request time-out and retried
  fake.inject('GET', /\/status$/, { hang: true });
  // (long enough for the submit on a loaded machine: a submit that times out is not sent again)
  const out = await run({ prompt: 'x' }, { model: 'fal-ai/flux-pro/v1.1' }, { retry: { ...fast, requestTimeoutMs: 1500 } }).p;
  assert.equal((out.result as FileOutput[]).length, 1);
});

test('output files on internal addresses are refused without ATELIER_ALLOW_PRIVATE_URLS', async () => {
  await assert.rejects(run({ prompt: 'x' }, { model: 'fal-ai/flux-pro/v1.1' }, { allowPrivate: false }).p, /cannot download the fal output http:\/\/127\.0\.0\.1:\d+\/files\/.*not allowed/);
});

test('provider-returned URLs are used only on the configured host (the key never goes elsewhere)', async () => {
  // Point the adapter at the fake through "localhost" while the fake answers with 127.0.0.1 URLs:
  // another origin, so the adapter must build the status/result/cancel URLs itself.
  const port = new URL(fake.url).port;
  const from = fake.calls.length;
  const out = await run({ prompt: 'x' }, { model: 'fal-ai/flux-pro/v1.1' }, { queueUrl: `http://localhost:${port}/queue` }).p;
  assert.equal((out.result as FileOutput[]).length, 1);
  const withKey = fake.calls.slice(from).filter((c) => c.headers.authorization);
  assert.ok(withKey.length >= 3);
  assert.ok(withKey.every((c) => c.headers.host === `localhost:${port}`), 'credentials went only to the configured host');
});
