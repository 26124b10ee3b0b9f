import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { SFXR_PRESETS, sfxrEngine } from '../../../src/engines/local/audio/sfxr.js';
import { closeThreadPools } from '../../../src/engines/local/threads.js';
import { testContext } from '../../helpers/engineContext.js';
import { assertWav, resultFiles } from './wavAssert.js';

after(() => closeThreadPools());

const run = (preset: string, input: Record<string, unknown>) => {
  const { ctx, cleanup } = testContext();
  return sfxrEngine.execute({ nodeType: 'sfxr_sound_effects', subModelId: `sfxr-${preset}`, input, options: { preset } }, ctx).finally(cleanup);
};

test('every sfxr preset renders an audible 44.1 kHz WAV', async () => {
  for (const preset of Object.keys(SFXR_PRESETS)) {
    const out = await run(preset, { seed: 11, volume: 0.8, n: 1 });
    const [file] = resultFiles(out);
    assertWav(file!, { sampleRate: 44100, channels: 1, minSeconds: 0.05, maxSeconds: 30 });
  }
});

test('the same seed gives identical bytes, another seed a different sound', async () => {
  const a = resultFiles(await run('explosion', { seed: 1234, volume: 0.8, n: 1 }))[0]!;
  const b = resultFiles(await run('explosion', { seed: 1234, volume: 0.8, n: 1 }))[0]!;
  const c = resultFiles(await run('explosion', { seed: 1235, volume: 0.8, n: 1 }))[0]!;
  assert.ok(a.data.equals(b.data), 'same seed, same bytes');
  assert.ok(!a.data.equals(c.data), 'other seed, other bytes');
});

test('n variations use consecutive seeds and the seed is reported', async () => {
  const out = await run('laser-shoot', { seed: 40, volume: 0.5, n: 3 });
  const files = resultFiles(out);
  assert.equal(files.length, 3);
  assert.deepEqual(out.seed, { kind: 'number', value: 40 });
  const third = resultFiles(await run('laser-shoot', { seed: 42, volume: 0.5, n: 1 }))[0]!;
  assert.ok(files[2]!.data.equals(third.data));
  const unseeded = await run('jump', { volume: 0.5, n: 1 });
  assert.equal((unseeded.seed as { kind: string }).kind, 'number');
});
