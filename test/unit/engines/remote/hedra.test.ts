import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createMediaFetcher } from '../../../../src/engines/media.js';
import { createHedraEngine, type HedraSettings } from '../../../../src/engines/remote/hedra.js';
import { remoteEnginesFromEnv } from '../../../../src/engines/remote/index.js';
import { EngineError, EngineInputError, type FileOutput } from '../../../../src/engines/types.js';
import { bindings } from '../../../../src/catalog/hosted/bindings/hedra.js';
import { dataUrl, testContext } from '../../../helpers/engineContext.js';
import { startHedraFake, type HedraFake } from '../../../helpers/providers/hedra.js';
import { makeMp4Head, makePng, makeWav } from '../../../helpers/providers/media.js';

const KEY = 'hedra-test-key-0c1d2e';
let fake: HedraFake;
before(async () => {
  fake = await startHedraFake(KEY);
});
after(() => fake.close());

const fast = { retries: 2, baseDelayMs: 5, maxDelayMs: 2000, requestTimeoutMs: 5000 };
const settings = (o: Partial<HedraSettings> = {}): HedraSettings => ({ apiKey: KEY, baseUrl: `${fake.url}/web-app/public`, allowPrivate: true, retry: fast, pollIntervalMs: 5, maxPollIntervalMs: 20, ...o });
const INPUT = { image_url: dataUrl(makePng(8, 8), 'image/png'), audio_url: dataUrl(makeWav(0.05), 'audio/wav'), text_prompt: 'A person talking', resolution: '720p', aspect_ratio: '9:16' };

function run(input: Record<string, unknown>, o: Partial<HedraSettings> = {}, ctxOpts: Parameters<typeof testContext>[0] = {}) {
  const t = testContext(ctxOpts);
  after(t.cleanup);
  t.ctx.fetchMedia = createMediaFetcher({ allowPrivate: true, maxBytes: 1e6, timeoutMs: 30_000 });
  return { t, p: createHedraEngine(settings(o)).execute({ nodeType: 'hedra_lipsync', subModelId: 'hedra-lipsync', input, options: bindings['hedra-lipsync']!.options ?? {} }, t.ctx) };
}

test('unconfigured: unavailable with the variable to set', async () => {
  assert.deepEqual(await createHedraEngine({}).availability(), { available: false, reason: 'set HEDRA_API_KEY to run models on Hedra' });
  assert.equal((await remoteEnginesFromEnv({ HEDRA_API_KEY: 'k' }).find((e) => e.id === 'hedra')!.availability()).available, true);
  assert.equal(fake.calls.length, 0);
});

test('lipsync: image and audio become uploaded assets, the generation is polled, the video downloaded', async () => {
  const { t, p } = run({ ...INPUT, resolution: '1080p', aspect_ratio: '1:1' });
  const files = (await p).result as FileOutput[];
  assert.equal(files.length, 1);
  assert.equal(files[0]!.contentType, 'video/mp4');
  assert.deepEqual(files[0]!.data, makeMp4Head());
  const g = [...fake.generations.values()].at(-1)!;
  assert.deepEqual(g.body.generated_video_inputs, { text_prompt: 'A person talking', resolution: '1080p', aspect_ratio: '1:1' });
  assert.equal(fake.assets.get(g.body.start_keyframe_id)!.uploaded!.type, 'image/png');
  assert.equal(fake.assets.get(g.body.audio_id)!.uploaded!.type, 'audio/wav');
  assert.ok(fake.calls.every((c) => c.path.startsWith('/files/') || c.headers['x-api-key'] === KEY));
  assert.ok(t.progress.some(([, m]) => m === 'rendering on Hedra'));
});

test('inputs of the wrong kind are refused before anything is uploaded', async () => {
  const n = fake.calls.length;
  await assert.rejects(run({ ...INPUT, image_url: INPUT.audio_url }).p, /image/);
  await assert.rejects(run({ ...INPUT, audio_url: undefined }).p, (e: Error) => e instanceof EngineInputError && e.message === 'audio_url is required');
  assert.equal(fake.calls.length, n);
});

test('a failed generation fails the run with Hedra\'s reason; a bad key is clear; the generation request is not blindly re-sent', async () => {
  fake.failNext = 'No face detected in the start keyframe';
  await assert.rejects(run(INPUT).p, (e: Error) => e instanceof EngineError && /Hedra generation [\w-]+ failed: No face detected in the start keyframe/.test(e.message));
  await assert.rejects(run(INPUT, { apiKey: 'hedra-wrong-123' }).p, /Hedra refused the credentials \(HTTP 401\): Invalid API key; check HEDRA_API_KEY/);
  const n = fake.callsTo('POST', /\/generations$/).length;
  fake.inject('POST', /\/generations$/, { status: 502, body: 'Bad Gateway' });
  await assert.rejects(run(INPUT).p, /Hedra failed \(HTTP 502\)/);
  assert.equal(fake.callsTo('POST', /\/generations$/).length - n, 1);
});

test('a "complete" generation whose file is not a video fails the run', async () => {
  fake.inject('GET', /^\/files\//, { headers: { 'content-type': 'video/mp4' }, body: '<?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>' });
  await assert.rejects(run(INPUT).p, /Hedra answered with something that is not video/);
});

test('a deadline stops the polling and fails the run with the time-out', async () => {
  fake.pollsNeeded = 1_000_000;
  after(() => {
    fake.pollsNeeded = 2;
  });
  await assert.rejects(run(INPUT, {}, { timeoutMs: 300 }).p, /Hedra generation did not finish within the run's time limit/);
});
