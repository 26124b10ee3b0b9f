import path from 'node:path';
import { EngineInputError, type Engine } from '../../types.js';
import { ffmpegAvailability, ffmpegRequirement, fetchAudioFile, ffmpegToWav, probeAudio, wavOutput } from './audioIo.js';
import { atempoChain, rateShift } from './filters.js';

/** Plays audio faster or slower: time-stretching (atempo) keeps the pitch; the tape-style option does not. */
export const changeSpeedEngine: Engine = {
  id: 'audio-speed',
  requirements: [ffmpegRequirement],
  availability: ffmpegAvailability,

  async execute(req, ctx) {
    const speed = Number(req.input.speed ?? 1.25);
    if (!(speed >= 0.25 && speed <= 4)) throw new EngineInputError('speed must be from 0.25 to 4');
    const keepPitch = req.input.preserve_pitch !== false;
    const file = await fetchAudioFile(ctx, String(req.input.audio_url), 'audio');
    const probe = await probeAudio(file, 'audio_url', ctx.signal);
    ctx.progress(0.3, 'changing speed');
    const filters = keepPitch ? atempoChain(speed) : rateShift(probe.sampleRate, speed);
    const args = ['-i', file, '-map', '0:a:0', ...(filters.length ? ['-af', filters.join(',')] : [])];
    const data = await ffmpegToWav(args, path.join(ctx.tmpDir, 'speed.wav'), ctx, {
      // Slower is longer: at 0.25 the result is four times the input's length.
      shape: { seconds: probe.durationSeconds / speed, sampleRate: probe.sampleRate, channels: probe.channels },
    });
    ctx.progress(1, 'done');
    return { result: [wavOutput(data, 'speed.wav')] };
  },
};
