import assert from 'node:assert/strict';
import { test } from 'node:test';
import { models } from '../../../src/catalog/models/localAudio.js';
import { audioEngines } from '../../../src/engines/local/audio/index.js';
import { assertCatalogMatchesEngines } from './catalogCheck.js';

test('every local audio model binds an existing engine, with well-formed ids, fields and pricing', () => {
  assertCatalogMatchesEngines(models, audioEngines);
  const names = models.map((m) => m.nodeType).sort();
  assert.deepEqual(names, [
    'algorithmic_music', 'change_speed', 'concat_audio', 'espeak_tts', 'festival_tts', 'flite_tts', 'mix_audio', 'pitch_shift',
    'sfxr_sound_effects', 'transcribe_audio', 'trim_audio',
  ]);
  const sfxr = models.find((m) => m.nodeType === 'sfxr_sound_effects')!;
  assert.deepEqual(sfxr.modes.map((m) => m.subModelId), [
    'sfxr-pickup-coin', 'sfxr-laser-shoot', 'sfxr-explosion', 'sfxr-power-up', 'sfxr-hit-hurt', 'sfxr-jump',
    'sfxr-blip-select', 'sfxr-synth', 'sfxr-tone', 'sfxr-click', 'sfxr-random',
  ]);
});

test('engines report availability and say what to install when they cannot run', async () => {
  for (const engine of audioEngines) {
    const a = await engine.availability();
    assert.equal(typeof a.available, 'boolean');
    if (!a.available) assert.match(a.reason ?? '', /install|npm ci/, `${engine.id} gives an actionable reason`);
    assert.ok(engine.requirements.length > 0);
  }
});
