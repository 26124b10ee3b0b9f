import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createMediaFetcher } from '../../../../src/engines/media.js';
import { createGoogleEngine, pcmToWav, type GoogleSettings } from '../../../../src/engines/remote/google.js';
import { remoteEnginesFromEnv } from '../../../../src/engines/remote/index.js';
import { EngineError, EngineInputError, type FileOutput } from '../../../../src/engines/types.js';
import { bindings } from '../../../../src/catalog/hosted/bindings/google.js';
import { dataUrl, testContext } from '../../../helpers/engineContext.js';
import { pcmTone, startGoogleFake } from '../../../helpers/providers/google.js';
import { makeMp3, makePng } from '../../../helpers/providers/media.js';
import type { FakeServer } from '../../../helpers/providers/server.js';

const KEY = 'AIza-test-key-5c0ffee';
let fake: FakeServer;
before(async () => {
  fake = await startGoogleFake(KEY);
});
after(() => fake.close());

const fast = { retries: 2, baseDelayMs: 5, maxDelayMs: 2000, requestTimeoutMs: 5000 };
const settings = (o: Partial<GoogleSettings> = {}): GoogleSettings => ({ apiKey: KEY, baseUrl: `${fake.url}/v1beta`, retry: fast, ...o });
const TTS = { voice: 'Kore', isMultiSpeaker: false, speakers: [{ name: 'Speaker 1', voiceName: 'Kore' }, { name: 'Speaker 2', voiceName: 'Puck' }], styleGuide: '' };

function run(subModelId: string, input: Record<string, unknown>, o: Partial<GoogleSettings> = {}) {
  const binding = bindings[subModelId]!;
  assert.equal(binding.engine, 'google');
  const t = testContext();
  after(t.cleanup);
  t.ctx.fetchMedia = createMediaFetcher({ allowPrivate: true, maxBytes: 1e6, timeoutMs: 30_000 });
  return createGoogleEngine(settings(o)).execute({ nodeType: 'x', subModelId, input, options: binding.options ?? {} }, t.ctx);
}
const only = async (p: ReturnType<typeof run>) => {
  const files = (await p).result as FileOutput[];
  assert.equal(files.length, 1);
  return files[0]!;
};

test('unconfigured: unavailable with the variable to set', async () => {
  assert.deepEqual(await createGoogleEngine({}).availability(), { available: false, reason: 'set GEMINI_API_KEY to run models on the Gemini API' });
  assert.equal((await remoteEnginesFromEnv({ GEMINI_API_KEY: 'k' }).find((e) => e.id === 'google')!.availability()).available, true);
  assert.equal(fake.calls.length, 0);
});

test('Gemini TTS, one voice: the request Google documents, the PCM answer wrapped into a playable WAV', async () => {
  const f = await only(run('gemini-pro-tts', { ...TTS, text: 'Say cheerfully: have a wonderful day!', styleGuide: 'Warm and slow' }));
  assert.equal(f.contentType, 'audio/wav');
  assert.equal(f.filename, 'speech.wav');
  assert.deepEqual(f.data.subarray(44), pcmTone());
  assert.equal(f.data.readUInt32LE(24), 24000);
  assert.equal(f.durationSeconds, 0.1);
  const call = fake.calls.at(-1)!;
  assert.equal(call.path, '/v1beta/models/gemini-2.5-pro-preview-tts:generateContent');
  assert.equal(call.headers['x-goog-api-key'], KEY);
  assert.deepEqual(call.json(), {
    contents: [{ parts: [{ text: 'Warm and slow:\nSay cheerfully: have a wonderful day!' }] }],
    generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
  });
});

test('Gemini TTS, two speakers: multiSpeakerVoiceConfig from the hosted speakers list', async () => {
  await only(run('gemini-pro-tts', { ...TTS, isMultiSpeaker: true, speakers: [{ name: 'Joe', voiceName: 'Charon' }, { name: 'Jane', voiceName: 'Puck' }], text: 'Joe: Hi.\nJane: Hello.' }));
  assert.deepEqual(fake.calls.at(-1)!.json().generationConfig.speechConfig, {
    multiSpeakerVoiceConfig: { speakerVoiceConfigs: [{ speaker: 'Joe', voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Charon' } } }, { speaker: 'Jane', voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Puck' } } }] },
  });
  const n = fake.calls.length;
  await assert.rejects(run('gemini-pro-tts', { ...TTS, isMultiSpeaker: true, speakers: [{ name: 'Solo', voiceName: 'Kore' }], text: 'x' }), (e: Error) => e instanceof EngineInputError && /exactly two speakers/.test(e.message));
  assert.equal(fake.calls.length, n);
});

test('Lyria: prompt and pictures in as parts, the MP3 part out', async () => {
  const png = makePng(4, 4);
  const f = await only(run('lyria-3.5', { prompt: 'an upbeat synth-pop song', images: [dataUrl(png, 'image/png')] }));
  assert.equal(f.contentType, 'audio/mpeg');
  assert.deepEqual(f.data, makeMp3());
  assert.deepEqual(fake.calls.at(-1)!.json(), { contents: [{ parts: [{ text: 'an upbeat synth-pop song' }, { inlineData: { mimeType: 'image/png', data: png.toString('base64') } }] }] });
  assert.equal(fake.calls.at(-1)!.path, '/v1beta/models/lyria-3.5:generateContent');
  await assert.rejects(run('lyria-3.5', { prompt: '', images: [] }), (e: Error) => e instanceof EngineInputError);
});

test('a wrong key (answered 400 INVALID_ARGUMENT) is the operator\'s error naming GEMINI_API_KEY; other 400s are input errors', async () => {
  await assert.rejects(run('gemini-pro-tts', { ...TTS, text: 'x' }, { apiKey: 'AIza-wrong-999' }), (e: Error) => {
    assert.ok(!(e instanceof EngineInputError));
    assert.equal(e.message, 'Gemini API rejected the input (HTTP 400): API key not valid. Please pass a valid API key.; check GEMINI_API_KEY');
    return true;
  });
  await assert.rejects(run('gemini-pro-tts', { ...TTS, voice: 'Nobody', text: 'x' }), (e: Error) => e instanceof EngineInputError && /Voice name Nobody is not supported/.test(e.message));
});

test('blocked prompts, missing audio and bytes that are not audio fail the run; a 5xx is not re-sent', async () => {
  fake.inject('POST', /generateContent$/, { json: { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } } });
  await assert.rejects(run('gemini-pro-tts', { ...TTS, text: 'x' }), (e: Error) => e instanceof EngineInputError && /refused the prompt \(PROHIBITED_CONTENT\)/.test(e.message));
  fake.inject('POST', /generateContent$/, { json: { candidates: [{ content: { parts: [{ text: 'I cannot do that' }] }, finishReason: 'OTHER' }] } });
  await assert.rejects(run('gemini-pro-tts', { ...TTS, text: 'x' }), /answered without audio \(finishReason OTHER\)/);
  fake.inject('POST', /generateContent$/, { json: { candidates: [{ content: { parts: [{ inlineData: { mimeType: 'audio/mpeg', data: Buffer.from('{"oops":1}').toString('base64') } }] }, finishReason: 'STOP' }] } });
  await assert.rejects(run('lyria-3.5', { prompt: 'x' }), /the Gemini API answered with something that is not audio/);
  fake.inject('POST', /generateContent$/, { json: { candidates: [{ content: { parts: [{ inlineData: { mimeType: 'audio/L16;codec=pcm;rate=24000', data: Buffer.from([1, 2, 3]).toString('base64') } }] } }] } });
  await assert.rejects(run('gemini-pro-tts', { ...TTS, text: 'x' }), /PCM audio of an odd or empty length/);
  const n = fake.calls.length;
  fake.inject('POST', /generateContent$/, { status: 500, json: { error: { code: 500, message: 'An internal error has occurred.', status: 'INTERNAL' } } });
  await assert.rejects(run('gemini-pro-tts', { ...TTS, text: 'x' }), (e: Error) => e instanceof EngineError && /Gemini API failed \(HTTP 500\): An internal error has occurred/.test(e.message));
  assert.equal(fake.calls.length - n, 1);
  assert.equal(pcmToWav(Buffer.alloc(4), 16000).readUInt32LE(40), 4);
});
