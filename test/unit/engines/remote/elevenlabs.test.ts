import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createMediaFetcher } from '../../../../src/engines/media.js';
import { createElevenLabsEngine, musicBody, type ElevenLabsSettings } from '../../../../src/engines/remote/elevenlabs.js';
import { remoteEnginesFromEnv } from '../../../../src/engines/remote/index.js';
import { EngineError, EngineInputError, type FileOutput } from '../../../../src/engines/types.js';
import { bindings } from '../../../../src/catalog/hosted/bindings/elevenlabs.js';
import { dataUrl, testContext } from '../../../helpers/engineContext.js';
import { startElevenLabsFake, type ElevenLabsFake } from '../../../helpers/providers/elevenlabs.js';
import { makeMp3, makeMp4Head, makeWav } from '../../../helpers/providers/media.js';

const KEY = 'el-test-key-7f3a9c';
const VOICE = '21m00Tcm4TlvDq8ikWAM';
let fake: ElevenLabsFake;
before(async () => {
  fake = await startElevenLabsFake(KEY);
});
after(() => fake.close());

const fast = { retries: 2, baseDelayMs: 5, maxDelayMs: 2000, requestTimeoutMs: 5000 };
const settings = (o: Partial<ElevenLabsSettings> = {}): ElevenLabsSettings => ({ apiKey: KEY, baseUrl: `${fake.url}/v1`, allowPrivate: true, retry: fast, pollIntervalMs: 5, maxPollIntervalMs: 20, ...o });

/** Runs a hosted sub-model through the adapter with its binding from src/catalog/hosted/bindings/elevenlabs.ts. */
function run(subModelId: string, input: Record<string, unknown>, o: Partial<ElevenLabsSettings> = {}, ctxOpts: Parameters<typeof testContext>[0] = {}) {
  const binding = bindings[subModelId];
  assert.ok(binding, `binding for ${subModelId}`);
  assert.equal(binding.engine, 'elevenlabs');
  const t = testContext(ctxOpts);
  after(t.cleanup);
  t.ctx.fetchMedia = createMediaFetcher({ allowPrivate: true, maxBytes: 1e6, timeoutMs: 30_000 });
  return { t, p: createElevenLabsEngine(settings(o)).execute({ nodeType: subModelId.replace(/-/g, '_'), subModelId, input, options: binding.options ?? {} }, t.ctx) };
}
const only = (out: Awaited<ReturnType<typeof run>['p']>) => {
  const files = out.result as FileOutput[];
  assert.equal(files.length, 1);
  return files[0]!;
};

test('unconfigured: listed, unavailable with the variable to set, and refusing to run', async () => {
  const e = createElevenLabsEngine({});
  assert.equal(e.id, 'elevenlabs');
  assert.deepEqual(await e.availability(), { available: false, reason: 'set ELEVENLABS_API_KEY to run models on ElevenLabs' });
  await assert.rejects(e.execute({ nodeType: 'x', subModelId: 'x', input: {}, options: {} }, testContext().ctx), /engine elevenlabs is not configured/);
  const fromEnv = remoteEnginesFromEnv({}).find((x) => x.id === 'elevenlabs')!;
  assert.equal((await fromEnv.availability()).available, false);
  assert.equal((await remoteEnginesFromEnv({ ELEVENLABS_API_KEY: 'k' }).find((x) => x.id === 'elevenlabs')!.availability()).available, true);
  assert.equal(fake.calls.length, 0, 'nothing was sent anywhere');
});

test('text to speech (v3 and multilingual v2): hosted names become the ElevenLabs request, MP3 bytes come back', async () => {
  const f = only(await run('elevenlabs-v3-tts', {
    text: 'Hello there', voice_id: VOICE, stability: 0.4, similarityBoost: 0.8, style: 0.1, language_code: 'auto',
    apply_text_normalization: 'on', apply_language_text_normalization: false, seed: 12, previous_text: 'Before.',
  }).p);
  assert.equal(f.contentType, 'audio/mpeg');
  assert.equal(f.filename, 'speech.mp3');
  assert.deepEqual(f.data, makeMp3());
  const call = fake.callsTo('POST', /^\/v1\/text-to-speech\//).at(-1)!;
  assert.equal(call.path, `/v1/text-to-speech/${VOICE}`);
  assert.equal(call.query.get('output_format'), 'mp3_44100_128');
  assert.equal(call.headers['xi-api-key'], KEY);
  assert.deepEqual(call.json(), {
    text: 'Hello there', model_id: 'eleven_v3', voice_settings: { stability: 0.4, similarity_boost: 0.8, style: 0.1 },
    seed: 12, previous_text: 'Before.', apply_text_normalization: 'on',
  });
  await run('elevenlabs-multilingual-v2-tts', { text: 'こんにちは', voice_id: VOICE, speed: 1.1, useSpeakerBoost: true, language_code: 'ja', apply_language_text_normalization: true }).p;
  const v2 = fake.callsTo('POST', /^\/v1\/text-to-speech\//).at(-1)!.json();
  assert.equal(v2.model_id, 'eleven_multilingual_v2');
  assert.deepEqual(v2.voice_settings, { speed: 1.1, use_speaker_boost: true });
  assert.equal(v2.language_code, 'ja');
  assert.equal(v2.apply_language_text_normalization, true);
});

test('sound effects and music: durations in the provider units, composition plans in its shape', async () => {
  only(await run('elevenlabs-sfx', { text: 'door creak', duration: 2.5, promptInfluence: 0.6, loop: true }).p);
  assert.deepEqual(fake.callsTo('POST', /^\/v1\/sound-generation$/).at(-1)!.json(), { text: 'door creak', duration_seconds: 2.5, prompt_influence: 0.6, loop: true });
  only(await run('elevenlabs-music', { prompt: 'calm piano', duration: 30, force_instrumental: true, sign_with_c2pa: false, composition_plan: [] }).p);
  assert.deepEqual(fake.callsTo('POST', /^\/v1\/music$/).at(-1)!.json(), { model_id: 'music_v1', force_instrumental: true, prompt: 'calm piano', music_length_ms: 30000 });
  only(await run('elevenlabs-music', {
    prompt: 'ignored when a plan is given', duration: 180, force_instrumental: false,
    composition_plan: [{ positive_global_styles: 'lo-fi, warm', negative_global_styles: '', sections: [{ section_name: 'Intro', positive_local_styles: 'soft', negative_local_styles: 'drums', duration_ms: 10000, lines: 'first line\nsecond line' }] }],
  }).p);
  assert.deepEqual(fake.callsTo('POST', /^\/v1\/music$/).at(-1)!.json().composition_plan, {
    positive_global_styles: ['lo-fi', 'warm'], negative_global_styles: [],
    sections: [{ section_name: 'Intro', positive_local_styles: ['soft'], negative_local_styles: ['drums'], duration_ms: 10000, lines: ['first line', 'second line'] }],
  });
  assert.throws(() => musicBody({ duration: 10 }, {}), (e: Error) => e instanceof EngineInputError && /prompt or a composition plan/.test(e.message));
});

test('isolation and speech-to-speech upload the fetched audio as multipart', async () => {
  const wav = makeWav(0.05);
  only(await run('elevenlabs-isolation', { audioUrl: dataUrl(wav, 'audio/wav') }).p);
  only(await run('elevenlabs-sts', { audioUrl: dataUrl(wav, 'audio/wav'), voice_id: VOICE, model_id: 'eleven_multilingual_sts_v2', remove_background_noise: true, stability: 0.3, similarityBoost: 0.7, style: 0, speed: 1, useSpeakerBoost: true }).p);
  const sts = fake.callsTo('POST', /^\/v1\/speech-to-speech\//).at(-1)!;
  const form = await new Request('http://x/', { method: 'POST', headers: { 'content-type': String(sts.headers['content-type']) }, body: new Uint8Array(sts.body) }).formData();
  assert.equal(form.get('model_id'), 'eleven_multilingual_sts_v2');
  assert.equal(form.get('remove_background_noise'), 'true');
  assert.deepEqual(JSON.parse(String(form.get('voice_settings'))), { stability: 0.3, similarity_boost: 0.7, style: 0, speed: 1, use_speaker_boost: true });
  const audio = form.get('audio') as File;
  assert.equal(audio.name, 'audio.wav');
  assert.deepEqual(Buffer.from(await audio.arrayBuffer()), wav);
  // something that is not audio is refused before anything is sent
  const before = fake.calls.length;
  await assert.rejects(run('elevenlabs-isolation', { audioUrl: dataUrl(Buffer.from('not audio at all'), 'audio/wav') }).p, /audio or video/);
  assert.equal(fake.calls.length, before);
});

test('dubbing: a job polled until dubbed, then the dubbed file downloaded; video in, video out', async () => {
  const { t, p } = run('elevenlabs-dubbing', { audioUrl: dataUrl(makeWav(0.05), 'audio/wav'), targetLanguage: 'Spanish', sourceLanguage: 'Auto-detect' });
  const f = only(await p);
  assert.equal(f.contentType, 'audio/mpeg');
  const created = fake.callsTo('POST', /^\/v1\/dubbing$/).at(-1)!;
  const form = await new Request('http://x/', { method: 'POST', headers: { 'content-type': String(created.headers['content-type']) }, body: new Uint8Array(created.body) }).formData();
  assert.equal(form.get('target_lang'), 'es');
  assert.equal(form.get('source_lang'), 'auto');
  const id = [...fake.dubs.keys()].at(-1)!;
  assert.ok(fake.callsTo('GET', new RegExp(`^/v1/dubbing/${id}$`)).length >= 3, 'polled until dubbed');
  assert.equal(fake.callsTo('GET', new RegExp(`^/v1/dubbing/${id}/audio/es$`)).length, 1);
  assert.ok(t.progress.some(([, m]) => m === 'dubbing on ElevenLabs'));
  const v = only(await run('elevenlabs-dubbing', { audioUrl: dataUrl(makeMp4Head(), 'video/mp4'), targetLanguage: 'German', sourceLanguage: 'French' }).p);
  assert.equal(v.contentType, 'video/mp4');
  assert.equal([...fake.dubs.values()].at(-1)!.source, 'fr');
});

test('dubbing that fails at ElevenLabs fails the run with its reason; a canceled run deletes the dubbing', async () => {
  fake.failNextDub = 'no speech found in the file';
  await assert.rejects(run('elevenlabs-dubbing', { audioUrl: dataUrl(makeWav(0.05), 'audio/wav'), targetLanguage: 'French' }).p, (e: Error) => e instanceof EngineError && /ElevenLabs dubbing \w+ failed: no speech found in the file/.test(e.message));
  fake.dubbingPolls = 1_000_000;
  after(() => {
    fake.dubbingPolls = 2;
  });
  const ctl = new AbortController();
  const known = fake.dubs.size;
  const { p } = run('elevenlabs-dubbing', { audioUrl: dataUrl(makeWav(0.05), 'audio/wav'), targetLanguage: 'Italian' }, {}, { signal: ctl.signal });
  while (fake.dubs.size === known || [...fake.dubs.values()].at(-1)!.polls < 2) await new Promise((r) => setTimeout(r, 10));
  ctl.abort(new Error('canceled by the user'));
  await assert.rejects(p, /canceled by the user/);
  const d = [...fake.dubs.values()].at(-1)!;
  assert.equal(d.deleted, true);
  assert.equal(fake.callsTo('DELETE', new RegExp(`^/v1/dubbing/${d.id}$`)).length, 1);
});

test('provider refusals: bad key, unknown voice, validation errors — each a clear message, the key never shown', async () => {
  await assert.rejects(run('elevenlabs-v3-tts', { text: 'x', voice_id: VOICE }, { apiKey: 'wrong-key-000111' }).p, (e: Error) => {
    assert.equal(e.message, 'ElevenLabs refused the credentials (HTTP 401): Invalid API key (invalid_api_key); check ELEVENLABS_API_KEY');
    return true;
  });
  await assert.rejects(run('elevenlabs-v3-tts', { text: 'x', voice_id: 'NoSuchVoice123' }).p, /ElevenLabs answered not found \(HTTP 404\).*A voice with voice_id NoSuchVoice123 was not found/);
  await assert.rejects(run('elevenlabs-sfx', { text: 'boom', duration: 31 }).p, (e: Error) => e instanceof EngineInputError && e.message === 'ElevenLabs rejected the input (HTTP 422): duration_seconds: must be between 0.5 and 30');
  await assert.rejects(run('elevenlabs-v3-tts', { text: 'x', voice_id: '../../v1/user' }).p, (e: Error) => e instanceof EngineInputError && /not an ElevenLabs voice id/.test(e.message));
});

test('paid work is never blindly re-sent: a 500 on text-to-speech is not retried, a 429 is', async () => {
  const path = /^\/v1\/text-to-speech\//;
  let before = fake.callsTo('POST', path).length;
  fake.inject('POST', path, { status: 500, json: { detail: { status: 'internal_error', message: 'upstream failure' } } });
  await assert.rejects(run('elevenlabs-v3-tts', { text: 'x', voice_id: VOICE }).p, /ElevenLabs failed \(HTTP 500\): upstream failure/);
  assert.equal(fake.callsTo('POST', path).length - before, 1, 'the ambiguous failure was not re-sent');
  before = fake.callsTo('POST', path).length;
  fake.inject('POST', path, { status: 429, headers: { 'retry-after': '0' }, json: { detail: { status: 'too_many_concurrent_requests', message: 'busy' } } });
  only(await run('elevenlabs-v3-tts', { text: 'x', voice_id: VOICE }).p);
  assert.equal(fake.callsTo('POST', path).length - before, 2);
});

test('an answer that is not what it claims (HTML or JSON served as audio/mpeg, or empty) fails the run', async () => {
  const path = /^\/v1\/text-to-speech\//;
  fake.inject('POST', path, { headers: { 'content-type': 'audio/mpeg' }, body: '<html><body>maintenance</body></html>' });
  await assert.rejects(run('elevenlabs-v3-tts', { text: 'x', voice_id: VOICE }).p, (e: Error) => e instanceof EngineError && /ElevenLabs answered with something that is not audio \(application\/octet-stream, starting "<html>/.test(e.message));
  fake.inject('POST', /^\/v1\/sound-generation$/, { headers: { 'content-type': 'audio/mpeg' }, body: '' });
  await assert.rejects(run('elevenlabs-sfx', { text: 'x' }).p, /ElevenLabs answered with an empty file/);
  fake.inject('POST', /^\/v1\/music$/, { headers: { 'content-type': 'audio/mpeg' }, body: makeMp4Head() });
  await assert.rejects(run('elevenlabs-music', { prompt: 'x', duration: 10 }).p, /not audio \(video\/mp4\)/);
});

test('every hosted ElevenLabs sub-model has a binding to this adapter', () => {
  assert.deepEqual(Object.keys(bindings).sort(), ['elevenlabs-dubbing', 'elevenlabs-isolation', 'elevenlabs-multilingual-v2-tts', 'elevenlabs-music', 'elevenlabs-sfx', 'elevenlabs-sts', 'elevenlabs-v3-tts']);
  for (const b of Object.values(bindings)) assert.equal(b.engine, 'elevenlabs');
});
