import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changeSpeedEngine } from '../../../src/engines/local/audio/speed.js';
import { concatAudioEngine } from '../../../src/engines/local/audio/concat.js';
import { mixAudioEngine } from '../../../src/engines/local/audio/mix.js';
import { pitchShiftEngine } from '../../../src/engines/local/audio/pitch.js';
import { trimAudioEngine } from '../../../src/engines/local/audio/trim.js';
import { ffmpegInfo } from '../../../src/engines/local/ffmpeg.js';
import { decodeWav } from '../../../src/engines/local/audio/wav.js';
import { EngineInputError, type Engine } from '../../../src/engines/types.js';
import { dataUrl, testContext } from '../../helpers/engineContext.js';
import { assertWav, resultFiles, rms, sineWav, zeroCrossingHz } from './wavAssert.js';

const A440 = dataUrl(sineWav(440, 3), 'audio/wav');
const E660_STEREO_22K = dataUrl(sineWav(660, 1, { sampleRate: 22050, channels: 2 }), 'audio/wav');

async function run(engine: Engine, input: Record<string, unknown>) {
  const { ctx, cleanup } = testContext();
  try {
    return await engine.execute({ nodeType: 'x', subModelId: 'x', input, options: {} }, ctx);
  } finally {
    cleanup();
  }
}

test('ffmpeg is found (system or npm static build)', () => {
  const info = ffmpegInfo();
  assert.ok(info, 'ffmpeg available');
  console.log(`using ${info.system ? 'system' : 'static npm'} ffmpeg at ${info.ffmpeg}`);
});

test('trim_audio cuts the asked span, sample-accurately, and refuses a start past the end', async () => {
  const [file] = resultFiles(await run(trimAudioEngine, { audio_url: A440, start: 0.5, duration: 1.25, fade: 0.1 }));
  assertWav(file!, { sampleRate: 44100, channels: 1, minSeconds: 1.249, maxSeconds: 1.251 });
  assert.ok(Math.abs(zeroCrossingHz(file!, 0.2, 1) - 440) < 3);
  const [tail] = resultFiles(await run(trimAudioEngine, { audio_url: A440, start: 2 }));
  assertWav(tail!, { minSeconds: 0.99, maxSeconds: 1.01 });
  await assert.rejects(run(trimAudioEngine, { audio_url: A440, start: 5 }), EngineInputError);
  await assert.rejects(run(trimAudioEngine, { audio_url: dataUrl(Buffer.from('not audio at all'), 'audio/wav') }), EngineInputError);
});

test('concat_audio joins inputs of different formats with a gap', async () => {
  const [file] = resultFiles(await run(concatAudioEngine, { audio_urls: [A440, E660_STEREO_22K], gap: 0.5 }));
  const info = assertWav(file!, { sampleRate: 44100, channels: 2, minSeconds: 4.45, maxSeconds: 4.55 });
  assert.ok(info);
  assert.ok(Math.abs(zeroCrossingHz(file!, 0.5, 2.5) - 440) < 3, 'first part is the 440 Hz tone');
  assert.ok(rms(file!, 3.05, 3.45) < 0.001, 'silent gap');
  assert.ok(Math.abs(zeroCrossingHz(file!, 3.6, 4.4) - 660) < 4, 'then the 660 Hz tone');
});

test('mix_audio sums inputs over the longest length without level jumps, normalised to -1 dBFS', async () => {
  const [file] = resultFiles(await run(mixAudioEngine, { audio_urls: [A440, E660_STEREO_22K], volumes: [1, 1], length: 'longest', normalize: true }));
  assertWav(file!, { sampleRate: 44100, channels: 2, minSeconds: 2.99, maxSeconds: 3.01 });
  const { channels } = decodeWav(file!.data);
  const peak = channels[0]!.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  assert.ok(Math.abs(peak - 0.891) < 0.02, `peak ${peak}`);
  // After the short input ends, the remaining tone keeps its level (0.5 of the pre-normalisation scale).
  const alone = rms(file!, 1.5, 2.9);
  assert.ok(Math.abs(alone / (0.5 / Math.SQRT2) - 0.891) < 0.05, `level of the remaining tone ${alone}`);
  const [short] = resultFiles(await run(mixAudioEngine, { audio_urls: [A440, E660_STEREO_22K], length: 'shortest', normalize: false }));
  assertWav(short!, { minSeconds: 0.99, maxSeconds: 1.01 });
});

test('change_speed keeps pitch with time-stretch, or shifts it tape-style', async () => {
  const [fast] = resultFiles(await run(changeSpeedEngine, { audio_url: A440, speed: 2.5, preserve_pitch: true }));
  assertWav(fast!, { minSeconds: 1.15, maxSeconds: 1.25 });
  assert.ok(Math.abs(zeroCrossingHz(fast!, 0.2, 1) - 440) < 6, 'pitch kept');
  const [tape] = resultFiles(await run(changeSpeedEngine, { audio_url: A440, speed: 0.5, preserve_pitch: false }));
  assertWav(tape!, { sampleRate: 44100, minSeconds: 5.95, maxSeconds: 6.05 });
  assert.ok(Math.abs(zeroCrossingHz(tape!, 1, 5) - 220) < 3, 'an octave down');
});

test('pitch_shift moves the frequency and keeps the length', async () => {
  const [up] = resultFiles(await run(pitchShiftEngine, { audio_url: A440, semitones: 12 }));
  assertWav(up!, { minSeconds: 2.95, maxSeconds: 3.05 });
  assert.ok(Math.abs(zeroCrossingHz(up!, 0.5, 2.5) - 880) < 8, 'an octave up');
  const [down] = resultFiles(await run(pitchShiftEngine, { audio_url: A440, semitones: -5 }));
  assert.ok(Math.abs(zeroCrossingHz(down!, 0.5, 2.5) - 440 * 2 ** (-5 / 12)) < 6, 'a fourth down');
});
