import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createMediaFetcher } from '../../../../src/engines/media.js';
import { createWaveSpeedEngine, type WaveSpeedSettings } from '../../../../src/engines/remote/wavespeed.js';
import { remoteEnginesFromEnv } from '../../../../src/engines/remote/index.js';
import { EngineError, EngineInputError, type FileOutput } from '../../../../src/engines/types.js';
import { bindings } from '../../../../src/catalog/hosted/bindings/wavespeed.js';
import { dataUrl, testContext } from '../../../helpers/engineContext.js';
import { startWaveSpeedFake, type WaveSpeedFake } from '../../../helpers/providers/wavespeed.js';
import { makeMp3, makeMp4Head, makePng, makeWav } from '../../../helpers/providers/media.js';

const KEY = 'ws-test-key-88e1aa';
let fake: WaveSpeedFake;
before(async () => {
  fake = await startWaveSpeedFake(KEY);
});
after(() => fake.close());

const fast = { retries: 2, baseDelayMs: 5, maxDelayMs: 2000, requestTimeoutMs: 5000 };
const settings = (o: Partial<WaveSpeedSettings> = {}): WaveSpeedSettings => ({ apiKey: KEY, baseUrl: `${fake.url}/api/v3`, allowPrivate: true, retry: fast, pollIntervalMs: 5, maxPollIntervalMs: 20, ...o });
const VIDEO = dataUrl(makeMp4Head(), 'video/mp4');
const IMAGE = dataUrl(makePng(8, 8), 'image/png');
const AUDIO = dataUrl(makeWav(0.05), 'audio/wav');

function run(subModelId: string, input: Record<string, unknown>, o: Partial<WaveSpeedSettings> = {}, ctxOpts: Parameters<typeof testContext>[0] = {}) {
  const binding = bindings[subModelId]!;
  assert.equal(binding.engine, 'wavespeed');
  const t = testContext(ctxOpts);
  after(t.cleanup);
  t.ctx.fetchMedia = createMediaFetcher({ allowPrivate: true, maxBytes: 1e6, timeoutMs: 30_000 });
  return { t, p: createWaveSpeedEngine(settings(o)).execute({ nodeType: 'x', subModelId, input, options: binding.options ?? {} }, t.ctx) };
}
const video = async (p: Promise<unknown>) => {
  const files = (await p as { result: FileOutput[] }).result;
  assert.equal(files.length, 1);
  assert.equal(files[0]!.contentType, 'video/mp4');
  return files[0]!;
};

test('unconfigured: unavailable with the variable to set', async () => {
  assert.deepEqual(await createWaveSpeedEngine({}).availability(), { available: false, reason: 'set WAVESPEED_API_KEY to run models on WaveSpeedAI' });
  assert.equal((await remoteEnginesFromEnv({ WAVESPEED_API_KEY: 'k' }).find((e) => e.id === 'wavespeed')!.availability()).available, true);
  assert.equal(fake.calls.length, 0);
});

test('every hosted WaveSpeed sub-model runs with its hosted inputs: media uploaded, parameters renamed, prediction polled, video downloaded', async () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['video-bg-remover-green-screen', { video_url: VIDEO }],
    ['video-bg-remover-transparent', { video_url: VIDEO }],
    ['video-bg-changer', { video_url: VIDEO, background_image: IMAGE }],
    ['video-faceswap', { source_image_url: IMAGE, video_url: VIDEO, target_gender: 'female' }],
    ['video-watermark-remover', { video_url: VIDEO }],
    ['video-upscaler', { video_url: VIDEO, target_resolution: '4k' }],
    ['infinitalk-video-lipsync', { video_url: VIDEO, audio_url: AUDIO, prompt: 'speaks calmly', resolution: '480p' }],
    ['infinitalk-lipsync', { image_url: IMAGE, audio_url: dataUrl(makeMp3(), 'audio/mpeg'), prompt: '', resolution: '720p' }],
  ];
  assert.deepEqual(cases.map(([id]) => id).sort(), Object.keys(bindings).sort());
  for (const [id, input] of cases) {
    const { t, p } = run(id, input);
    await video(p);
    assert.ok(t.progress.some(([, m]) => m === 'running on WaveSpeed'), id);
  }
  const sent = (model: string) => [...fake.jobs.values()].filter((j) => j.model === model).at(-1)!.input;
  const faceswap = sent('wavespeed-ai/video-face-swap');
  assert.deepEqual(Object.keys(faceswap).sort(), ['face_image', 'target_gender', 'video']);
  assert.equal(faceswap.target_gender, 'female');
  assert.match(String(faceswap.face_image), new RegExp(`^${fake.url}/files/.*image\\.png$`));
  assert.equal(sent('wavespeed-ai/infinitetalk').resolution, '720p');
  assert.equal(sent('wavespeed-ai/infinitetalk').prompt, undefined, 'an empty prompt is left to the provider');
  assert.equal(sent('wavespeed-ai/video-upscaler-pro').target_resolution, '4k');
  // the uploaded bytes are the caller's, re-typed from their content
  const up = [...fake.uploads.values()].find((u) => u.type === 'audio/mpeg')!;
  assert.deepEqual(up.data, makeMp3());
  const submit = fake.callsTo('POST', /^\/api\/v3\/wavespeed-ai\/video-upscaler-pro$/).at(-1)!;
  assert.equal(submit.headers.authorization, `Bearer ${KEY}`);
});

test('missing or wrong-kind media is refused before anything is submitted', async () => {
  const n = fake.jobs.size;
  await assert.rejects(run('infinitalk-lipsync', { image_url: IMAGE }).p, (e: Error) => e instanceof EngineInputError && e.message === 'audio_url is required (audio)');
  await assert.rejects(run('video-upscaler', { video_url: IMAGE }).p, /video/);
  assert.equal(fake.jobs.size, n);
});

test('a failed prediction fails the run with WaveSpeed\'s reason; refusals and the bad key are clear; the submission is not blindly re-sent', async () => {
  fake.failNext = 'face not detected in source image';
  await assert.rejects(run('video-faceswap', { source_image_url: IMAGE, video_url: VIDEO }).p, (e: Error) => e instanceof EngineError && /WaveSpeed prediction \w+ failed: face not detected in source image/.test(e.message));
  await assert.rejects(run('video-upscaler', { video_url: VIDEO }, { apiKey: 'ws-wrong-key-0001' }).p, /WaveSpeed refused the credentials \(HTTP 401\): Unauthorized: invalid API key; check WAVESPEED_API_KEY/);
  const n = fake.callsTo('POST', /video-upscaler-pro$/).length;
  fake.inject('POST', /video-upscaler-pro$/, { status: 500, json: { code: 500, message: 'internal error', data: null } });
  await assert.rejects(run('video-upscaler', { video_url: VIDEO }).p, /WaveSpeed failed \(HTTP 500\): internal error/);
  assert.equal(fake.callsTo('POST', /video-upscaler-pro$/).length - n, 1);
  // an envelope whose own code says failure, under HTTP 200
  fake.inject('POST', /video-upscaler-pro$/, { json: { code: 400, message: 'insufficient balance', data: null } });
  await assert.rejects(run('video-upscaler', { video_url: VIDEO }).p, /WaveSpeed refused the submission \(code 400\): insufficient balance/);
});

test('outputs that are not video, or no outputs, fail the run', async () => {
  fake.inject('GET', /\/result$/, { json: { code: 200, message: 'success', data: { id: 'x', status: 'completed', outputs: [`${fake.url}/files/not-a-video.mp4`] } } });
  fake.uploads.set('not-a-video.mp4', { type: 'video/mp4', data: Buffer.from('<Error>AccessDenied</Error>') });
  await assert.rejects(run('video-watermark-remover', { video_url: VIDEO }).p, /WaveSpeed answered with something that is not video/);
  fake.inject('GET', /\/result$/, { json: { code: 200, message: 'success', data: { id: 'x', status: 'completed', outputs: [] } } });
  await assert.rejects(run('video-watermark-remover', { video_url: VIDEO }).p, /WaveSpeed finished but returned no output file/);
});

test('cancel and deadline stop polling (WaveSpeed has no cancel endpoint) and fail the run with the reason', async () => {
  fake.pollsNeeded = 1_000_000;
  after(() => {
    fake.pollsNeeded = 2;
  });
  const ctl = new AbortController();
  const { p } = run('video-upscaler', { video_url: VIDEO }, {}, { signal: ctl.signal });
  setTimeout(() => ctl.abort(new Error('canceled by the user')), 80);
  await assert.rejects(p, /canceled by the user/);
  await assert.rejects(run('video-upscaler', { video_url: VIDEO }, {}, { timeoutMs: 150 }).p, /WaveSpeed model wavespeed-ai\/video-upscaler-pro did not finish within the run's time limit/);
});
