import path from 'node:path';
import { EngineInputError, type Engine } from '../../types.js';
import { ffmpegAvailability, ffmpegRequirement, fetchAudioFile, ffmpegToWav, probeAudio, wavOutput } from './audioIo.js';
import { atempoChain, rateShift } from './filters.js';

/**
 * Shifts pitch by semitones and keeps the length: resample to move the pitch (which also changes the
 * speed), then time-stretch back with atempo. A classic DSP voice changer, not a neural one.
 */
export const pitchShiftEngine: Engine = {
  id: 'audio-pitch',
  requirements: [ffmpegRequirement],
  availability: ffmpegAvailability,

  async execute(req, ctx) {
    const semitones = Number(req.input.semitones ?? 3);
    if (!(semitones >= -12 && semitones <= 12)) throw new EngineInputError('semitones must be from -12 to 12');
    const file = await fetchAudioFile(ctx, String(req.input.audio_url), 'audio');
    const probe = await probeAudio(file, 'audio_url', ctx.signal);
    ctx.progress(0.3, 'shifting pitch');
    const ratio = 2 ** (semitones / 12);
    const filters = semitones === 0 ? [] : [...rateShift(probe.sampleRate, ratio), ...atempoChain(1 / ratio)];
    const args = ['-i', file, '-map', '0:a:0', ...(filters.length ? ['-af', filters.join(',')] : [])];
    const data = await ffmpegToWav(args, path.join(ctx.tmpDir, 'pitched.wav'), ctx, {
      shape: { seconds: probe.durationSeconds, sampleRate: probe.sampleRate, channels: probe.channels },
    });
    ctx.progress(1, 'done');
    return { result: [wavOutput(data, 'pitched.wav')] };
  },
};
