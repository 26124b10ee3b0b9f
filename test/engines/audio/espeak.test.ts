import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { espeakEngine } from '../../../src/engines/local/audio/espeak.js';
import { closeThreadPools } from '../../../src/engines/local/threads.js';
import { EngineInputError } from '../../../src/engines/types.js';
import { testContext } from '../../helpers/engineContext.js';
import { assertWav, resultFiles } from './wavAssert.js';

after(() => closeThreadPools());

const run = (input: Record<string, unknown>) => {
  const { ctx, progress, cleanup } = testContext();
  return espeakEngine.execute({ nodeType: 'espeak_tts', subModelId: 'espeak-tts', input, options: {} }, ctx).finally(cleanup).then((out) => ({ out, progress }));
};

test('espeak is available after npm ci', async () => {
  assert.deepEqual(await espeakEngine.availability(), { available: true });
});

test('espeak speaks English to a 22.05 kHz WAV of plausible length', async () => {
  const { out, progress } = await run({ text: 'Hello from the local speech engine. This sentence is spoken offline.', voice: 'en-us', variant: 'default', speed: 175, pitch: 50 });
  const [file] = resultFiles(out);
  assertWav(file!, { sampleRate: 22050, channels: 1, minSeconds: 2, maxSeconds: 8 });
  assert.ok(progress.length >= 1);
});

test('espeak speed changes the length; other languages and variants work', async () => {
  const text = 'The quick brown fox jumps over the lazy dog.';
  const slow = resultFiles((await run({ text, voice: 'en-us', variant: 'default', speed: 100, pitch: 50 })).out)[0]!;
  const fast = resultFiles((await run({ text, voice: 'en-us', variant: 'default', speed: 300, pitch: 50 })).out)[0]!;
  assert.ok(slow.durationSeconds! > fast.durationSeconds! * 1.8, `${slow.durationSeconds} vs ${fast.durationSeconds}`);
  const german = resultFiles((await run({ text: 'Guten Tag, wie geht es Ihnen?', voice: 'de', variant: 'f3', speed: 160, pitch: 60 })).out)[0]!;
  assertWav(german, { sampleRate: 22050, minSeconds: 1 });
});

test('espeak refuses an unknown voice and empty text as input errors', async () => {
  await assert.rejects(run({ text: 'hi', voice: 'xx-nowhere' }), EngineInputError);
  await assert.rejects(run({ text: '   ', voice: 'en-us' }), EngineInputError);
});
