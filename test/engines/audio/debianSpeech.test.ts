import assert from 'node:assert/strict';
import { test } from 'node:test';
import { festivalEngine } from '../../../src/engines/local/audio/festival.js';
import { FLITE_VOICES, fliteEngine } from '../../../src/engines/local/audio/flite.js';
import { parseTimedWords, transcribeEngine, type RecognizedWord } from '../../../src/engines/local/audio/transcribe.js';
import { EngineInputError, type Engine, type EngineOutputs, type FileOutput } from '../../../src/engines/types.js';
import { dataUrl, testContext } from '../../helpers/engineContext.js';
import { assertWav, resultFiles, sineWav } from './wavAssert.js';

/** Engines backed by Debian packages: each test skips, saying why, when its package is absent. */
async function runOrSkip(t: { skip(msg: string): void }, engine: Engine, input: Record<string, unknown>): Promise<EngineOutputs | undefined> {
  const a = await engine.availability();
  if (!a.available) {
    t.skip(a.reason ?? 'unavailable');
    return undefined;
  }
  const { ctx, cleanup } = testContext();
  try {
    return await engine.execute({ nodeType: 'x', subModelId: 'x', input, options: {} }, ctx);
  } finally {
    cleanup();
  }
}

const SENTENCE = 'the quick brown fox jumps over the lazy dog please call me tomorrow morning';

/** Share of the expected words found in the transcript (order ignored; repeats counted once each). */
function recall(expected: string, got: string): number {
  const pool = got.toLowerCase().split(/\s+/);
  const want = expected.split(/\s+/);
  let hits = 0;
  for (const w of want) {
    const i = pool.indexOf(w);
    if (i >= 0) {
      hits++;
      pool.splice(i, 1);
    }
  }
  return hits / want.length;
}

test('flite speaks with each of its voices; speed changes the length', async (t) => {
  for (const voice of FLITE_VOICES) {
    const out = await runOrSkip(t, fliteEngine, { text: 'Hello, this is flite speaking.', voice, speed: 1 });
    if (!out) return;
    // kal is an 8 kHz diphone voice; the others are 16 kHz.
    assertWav(resultFiles(out)[0]!, { sampleRate: voice === 'kal' ? 8000 : 16000, channels: 1, minSeconds: 1, maxSeconds: 5 });
  }
  const slow = resultFiles((await runOrSkip(t, fliteEngine, { text: SENTENCE, voice: 'slt', speed: 0.6 }))!)[0]!;
  const fast = resultFiles((await runOrSkip(t, fliteEngine, { text: SENTENCE, voice: 'slt', speed: 1.5 }))!)[0]!;
  assert.ok(slow.durationSeconds! > fast.durationSeconds! * 2, `${slow.durationSeconds} vs ${fast.durationSeconds}`);
  await assert.rejects(fliteEngine.execute({ nodeType: 'x', subModelId: 'x', input: { text: 'hi', voice: 'nobody' }, options: {} }, testContext().ctx), EngineInputError);
});

test('festival speaks with the SLT HTS voice; rate option works', async (t) => {
  const out = await runOrSkip(t, festivalEngine, { text: 'Festival speaks this sentence with a natural voice.', speed: 1, pitch: 0 });
  if (!out) return;
  const normal = resultFiles(out)[0]!;
  assertWav(normal, { minSeconds: 1.5, maxSeconds: 8 });
  const fast = resultFiles((await runOrSkip(t, festivalEngine, { text: 'Festival speaks this sentence with a natural voice.', speed: 1.6, pitch: 2 }))!)[0]!;
  assert.ok(fast.durationSeconds! < normal.durationSeconds! * 0.8);
});

test('transcribe_audio recognises a flite-spoken sentence', async (t) => {
  const spoken = await runOrSkip(t, fliteEngine, { text: `${SENTENCE}.`, voice: 'slt', speed: 1 });
  if (!spoken) return;
  const wav = resultFiles(spoken)[0] as FileOutput;
  const out = await runOrSkip(t, transcribeEngine, { audio_url: dataUrl(wav.data, 'audio/wav') });
  if (!out) return;
  const text = (out.output as { kind: 'text'; text: string }).text;
  console.log(`transcript: ${text}`);
  assert.ok(recall(SENTENCE, text) >= 0.75, `most words recognised: "${text}"`);
  const words = (out.words as { kind: 'json'; value: RecognizedWord[] }).value;
  assert.ok(words.length >= 10);
  for (let i = 1; i < words.length; i++) assert.ok(words[i]!.start >= words[i - 1]!.start, 'timings ascend');
});

test('transcribe_audio of a pure tone is not speech, and of junk bytes an input error', async (t) => {
  const out = await runOrSkip(t, transcribeEngine, { audio_url: dataUrl(sineWav(440, 1), 'audio/wav') });
  if (!out) return;
  assert.equal(typeof (out.output as { text: string }).text, 'string');
  await assert.rejects(
    transcribeEngine.execute({ nodeType: 'x', subModelId: 'x', input: { audio_url: dataUrl(Buffer.from('nope'), 'audio/wav') }, options: {} }, testContext().ctx),
    EngineInputError,
  );
});

test('parseTimedWords drops markers and fillers and strips pronunciation variants', () => {
  const words = parseTimedWords('<s> 0.100 0.150 0.999800\nthe(2) 0.160 0.280 0.591579\n[NOISE] 0.3 0.4 1.0\n<sil> 0.5 0.6 1\nfox 0.920 1.290 1.000300\n</s> 4.780 4.850 1.000000\n');
  assert.deepEqual(words, [
    { word: 'the', start: 0.16, end: 0.28, confidence: 0.591579 },
    { word: 'fox', start: 0.92, end: 1.29, confidence: 1 },
  ]);
});
