import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { compose } from '../../../src/engines/local/audio/music/compose.js';
import { musicEngine } from '../../../src/engines/local/audio/music/engine.js';
import { MOOD_NAMES } from '../../../src/engines/local/audio/music/moods.js';
import { chooseRenderer } from '../../../src/engines/local/audio/music/renderer.js';
import { closeThreadPools } from '../../../src/engines/local/threads.js';
import type { FileOutput } from '../../../src/engines/types.js';
import { testContext } from '../../helpers/engineContext.js';
import { assertWav, resultFiles, rms } from './wavAssert.js';

after(() => closeThreadPools());

const run = (input: Record<string, unknown>, renderer: 'wasm' | 'fluidsynth') => {
  const { ctx, cleanup } = testContext();
  return musicEngine.execute({ nodeType: 'algorithmic_music', subModelId: 'algorithmic-music', input, options: { renderer } }, ctx).finally(cleanup);
};

test('the composer writes a valid MIDI score for every mood, and a seed fixes it', () => {
  for (const mood of MOOD_NAMES) {
    const a = compose({ mood, key: 'auto', duration: 12, seed: 5 });
    assert.equal(Buffer.from(a.midi).toString('ascii', 0, 4), 'MThd');
    assert.ok(a.bars >= 3, `${mood}: ${a.bars} bars`);
    const b = compose({ mood, key: 'auto', duration: 12, seed: 5 });
    assert.deepEqual(Buffer.from(a.midi), Buffer.from(b.midi));
  }
  const c = compose({ mood: 'happy', key: 'D', tempo: 120, duration: 12, seed: 6 });
  assert.equal(c.key, 'D');
  assert.equal(c.tempo, 120);
  assert.equal(c.bars, 6);
});

test('WASM FluidSynth renders the exact length, music all the way through; same seed → same bytes', async () => {
  const input = { mood: 'happy', key: 'C', tempo: 120, duration: 8, seed: 42 };
  const out = await run(input, 'wasm');
  const [wav] = resultFiles(out);
  assertWav(wav!, { sampleRate: 44100, channels: 2, minSeconds: 7.99, maxSeconds: 8.01, minRms: 0.02 });
  // The player follows the sample clock: notes sound in the second half too, not only at the start.
  assert.ok(rms(wav!, 4, 6) > 0.02, 'late notes are rendered');
  const midi = out.midi as FileOutput;
  assert.equal(midi.contentType, 'audio/midi');
  assert.equal(midi.data.toString('ascii', 0, 4), 'MThd');
  assert.deepEqual(out.seed, { kind: 'number', value: 42 });

  const again = resultFiles(await run(input, 'wasm'))[0]!;
  assert.ok(again.data.equals(wav!.data), 'same seed, same WAV bytes');
  const other = resultFiles(await run({ ...input, mood: 'sad' }, 'wasm'))[0]!;
  assert.ok(!other.data.equals(wav!.data));
});

test('native fluidsynth renders the same score when installed', async (t) => {
  const choice = chooseRenderer('fluidsynth');
  if ('unavailable' in choice) return t.skip(choice.unavailable);
  const input = { mood: 'epic', key: 'auto', duration: 6, seed: 3 };
  const a = resultFiles(await run(input, 'fluidsynth'))[0]!;
  assertWav(a, { sampleRate: 44100, channels: 2, minSeconds: 5.99, maxSeconds: 6.01, minRms: 0.02 });
  const b = resultFiles(await run(input, 'fluidsynth'))[0]!;
  assert.ok(a.data.equals(b.data), 'deterministic');
});
