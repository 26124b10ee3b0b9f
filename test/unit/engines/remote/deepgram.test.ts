import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createMediaFetcher } from '../../../../src/engines/media.js';
import { createDeepgramEngine, formatTranscript, transcribeQuery, type DeepgramSettings } from '../../../../src/engines/remote/deepgram.js';
import { remoteEnginesFromEnv } from '../../../../src/engines/remote/index.js';
import { EngineError, EngineInputError } from '../../../../src/engines/types.js';
import { bindings } from '../../../../src/catalog/hosted/bindings/deepgram.js';
import { dataUrl, testContext } from '../../../helpers/engineContext.js';
import { startDeepgramFake, type DeepgramFake } from '../../../helpers/providers/deepgram.js';
import { makeMp3, makeWav } from '../../../helpers/providers/media.js';

const KEY = 'dg-test-key-91c2e0';
let fake: DeepgramFake;
before(async () => {
  fake = await startDeepgramFake(KEY);
});
after(() => fake.close());

const fast = { retries: 2, baseDelayMs: 5, maxDelayMs: 2000, requestTimeoutMs: 5000 };
const settings = (o: Partial<DeepgramSettings> = {}): DeepgramSettings => ({ apiKey: KEY, baseUrl: `${fake.url}/v1`, retry: fast, ...o });

/** The hosted form's defaults (hosted-catalog.json ai-transcription), as the run service fills them. */
const DEFAULTS = {
  inputMode: 'upload', language: 'Auto-detect language', keyterms: '', output_format: 'text', utterance_split: 0.8, diarize: true, smart_format: true,
  punctuate: true, paragraphs: true, filler_words: false, numerals: false, measurements: false, dictation: false, profanity_filter: false, multichannel: false, redact: 'none',
};

function run(subModelId: string, input: Record<string, unknown>, o: Partial<DeepgramSettings> = {}) {
  const binding = bindings[subModelId]!;
  assert.equal(binding.engine, 'deepgram');
  const t = testContext();
  after(t.cleanup);
  t.ctx.fetchMedia = createMediaFetcher({ allowPrivate: true, maxBytes: 1e6, timeoutMs: 30_000 });
  return createDeepgramEngine(settings(o)).execute({ nodeType: subModelId.replace(/-/g, '_'), subModelId, input, options: binding.options ?? {} }, t.ctx);
}
const text = async (p: ReturnType<typeof run>) => {
  const out = await p;
  assert.deepEqual(Object.keys(out), ['result'], 'answers under the hosted output key');
  return (out.result as { kind: string; text: string }).text;
};

test('unconfigured: unavailable with the variable to set', async () => {
  assert.deepEqual(await createDeepgramEngine({}).availability(), { available: false, reason: 'set DEEPGRAM_API_KEY to run models on Deepgram' });
  assert.equal((await remoteEnginesFromEnv({ DEEPGRAM_API_KEY: 'k' }).find((e) => e.id === 'deepgram')!.availability()).available, true);
  assert.equal(fake.calls.length, 0);
});

test('transcription with the hosted defaults: the audio bytes sent with their type, features in the query, speaker paragraphs back', async () => {
  const wav = makeWav(0.05);
  const out = await text(run('ai-transcription', { ...DEFAULTS, audioUrl: [dataUrl(wav, 'audio/wav')] }));
  assert.equal(out, 'Speaker 0: Welcome back to the show.\n\nSpeaker 1: Thanks for having me, it is good to be here.');
  const call = fake.calls.at(-1)!;
  assert.equal(call.headers.authorization, `Token ${KEY}`);
  assert.equal(call.headers['content-type'], 'audio/wav');
  assert.deepEqual(call.body, wav);
  assert.deepEqual(Object.fromEntries(call.query), {
    model: 'nova-3', diarize: 'true', smart_format: 'true', punctuate: 'true', paragraphs: 'true', filler_words: 'false', numerals: 'false',
    measurements: 'false', dictation: 'false', profanity_filter: 'false', multichannel: 'false', detect_language: 'true',
  });
});

test('timestamped lines from utterances; JSON; language, key terms and redaction mapped', async () => {
  const out = await text(run('ai-transcription', { ...DEFAULTS, audioUrl: dataUrl(makeMp3(), 'audio/mpeg'), output_format: 'timestamped', utterance_split: 1.2, language: 'en', keyterms: 'Atelier, nova\nDeepgram', redact: 'pii' }));
  assert.equal(out, '[00:00:00.00 - 00:00:02.50] Speaker 0: Welcome back to the show.\n[00:00:03.00 - 00:00:05.50] Speaker 1: Thanks for having me, it is good to be here.');
  const q = fake.calls.at(-1)!.query;
  assert.equal(q.get('utterances'), 'true');
  assert.equal(q.get('utt_split'), '1.2');
  assert.equal(q.get('language'), 'en');
  assert.equal(q.get('detect_language'), null);
  assert.deepEqual(q.getAll('keyterm'), ['Atelier', 'nova', 'Deepgram']);
  assert.equal(q.get('redact'), 'pii');
  const json = JSON.parse(await text(run('ai-transcription', { ...DEFAULTS, audioUrl: dataUrl(makeWav(0.05), 'audio/wav'), output_format: 'json' })));
  assert.equal(json.channels[0].alternatives[0].transcript, 'Welcome back to the show. Thanks for having me, it is good to be here.');
  // pure parts
  assert.equal(transcribeQuery({ language: 'auto' }, 'nova-2').get('detect_language'), 'true');
  assert.throws(() => formatTranscript({ results: {} }, 'text'), /without a transcript/);
});

test('podcast summary: summarize=v2 and the short summary back', async () => {
  assert.equal(await text(run('podcast-summarizer', { podcastUrl: dataUrl(makeMp3(), 'audio/mpeg') })), 'A host welcomes a guest to the show.');
  const q = fake.calls.at(-1)!.query;
  assert.equal(q.get('summarize'), 'v2');
  assert.equal(q.get('model'), 'nova-3');
  fake.inject('POST', /^\/v1\/listen$/, { json: { metadata: {}, results: { channels: [{ alternatives: [{ transcript: 'hi' }] }], summary: { result: 'failure' } } } });
  await assert.rejects(run('podcast-summarizer', { podcastUrl: dataUrl(makeMp3(), 'audio/mpeg') }), /Deepgram answered without a summary \(result: failure\)/);
});

test('inputs Deepgram cannot take here are refused before anything is sent or paid', async () => {
  const before = fake.calls.length;
  await assert.rejects(run('ai-transcription', { ...DEFAULTS, inputMode: 'youtube', url: 'https://www.youtube.com/watch?v=x' }), (e: Error) => e instanceof EngineInputError && /inputMode "youtube"/.test(e.message));
  await assert.rejects(run('ai-transcription', { ...DEFAULTS, audioUrl: [] }), (e: Error) => e instanceof EngineInputError && e.message === 'audioUrl is required');
  await assert.rejects(run('ai-transcription', { ...DEFAULTS, audioUrl: [dataUrl(Buffer.from('just text'), 'audio/wav')] }), /audio or video/);
  assert.equal(fake.calls.length, before);
});

test('Deepgram refusals: bad key, corrupt audio — clear messages; a 5xx is not re-sent, a 429 is', async () => {
  await assert.rejects(run('ai-transcription', { ...DEFAULTS, audioUrl: dataUrl(makeWav(0.05), 'audio/wav') }, { apiKey: 'wrong-key-12345' }), (e: Error) => {
    assert.equal(e.message, 'Deepgram refused the credentials (HTTP 401): INVALID_AUTH: Invalid credentials.; check DEEPGRAM_API_KEY');
    return true;
  });
  fake.inject('POST', /^\/v1\/listen$/, { status: 400, json: { err_code: 'Bad Request', err_msg: 'Bad Request: failed to process audio: corrupt or unsupported data', request_id: 'r1' } });
  await assert.rejects(run('ai-transcription', { ...DEFAULTS, audioUrl: dataUrl(makeWav(0.05), 'audio/wav') }), (e: Error) => e instanceof EngineInputError && /Deepgram rejected the input \(HTTP 400\): Bad Request: Bad Request: failed to process audio/.test(e.message));
  let n = fake.calls.length;
  fake.inject('POST', /^\/v1\/listen$/, { status: 502, body: '<html>bad gateway</html>' });
  await assert.rejects(run('podcast-summarizer', { podcastUrl: dataUrl(makeMp3(), 'audio/mpeg') }), (e: Error) => e instanceof EngineError && /Deepgram failed \(HTTP 502\)/.test(e.message));
  assert.equal(fake.calls.length - n, 1, 'the ambiguous failure was not re-sent');
  n = fake.calls.length;
  fake.inject('POST', /^\/v1\/listen$/, { status: 429, headers: { 'retry-after': '0' }, json: { err_code: 'TOO_MANY_REQUESTS', err_msg: 'Too many requests' } });
  await text(run('podcast-summarizer', { podcastUrl: dataUrl(makeMp3(), 'audio/mpeg') }));
  assert.equal(fake.calls.length - n, 2);
});

test('an answer without the transcript it should carry fails the run', async () => {
  fake.inject('POST', /^\/v1\/listen$/, { json: { metadata: {}, results: { channels: [] } } });
  await assert.rejects(run('ai-transcription', { ...DEFAULTS, audioUrl: dataUrl(makeWav(0.05), 'audio/wav') }), /Deepgram answered without a transcript/);
  fake.inject('POST', /^\/v1\/listen$/, { headers: { 'content-type': 'text/html' }, body: '<html>login</html>' });
  await assert.rejects(run('ai-transcription', { ...DEFAULTS, audioUrl: dataUrl(makeWav(0.05), 'audio/wav') }), /Deepgram sent a response that is not JSON/);
});
