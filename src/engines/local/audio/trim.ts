import path from 'node:path';
import { EngineInputError, type Engine } from '../../types.js';
import { ffmpegAvailability, ffmpegRequirement, fetchAudioFile, ffmpegToWav, probeAudio, wavOutput } from './audioIo.js';
import { num } from './filters.js';

/** Cuts a span out of an audio file (sample-accurate atrim), with optional fades at both ends. */
export const trimAudioEngine: Engine = {
  id: 'audio-trim',
  requirements: [ffmpegRequirement],
  availability: ffmpegAvailability,

  async execute(req, ctx) {
    const start = Number(req.input.start ?? 0);
    const wanted = req.input.duration === undefined ? undefined : Number(req.input.duration);
    const fade = Number(req.input.fade ?? 0);
    if (!(start >= 0)) throw new EngineInputError('start must be 0 or more seconds');
    if (wanted !== undefined && !(wanted > 0)) throw new EngineInputError('duration must be more than 0 seconds');

    const file = await fetchAudioFile(ctx, String(req.input.audio_url), 'audio');
    const probe = await probeAudio(file, 'audio_url', ctx.signal);
    ctx.progress(0.3, 'trimming');
    if (start >= probe.durationSeconds) {
      throw new EngineInputError(`start (${start} s) is past the end of the audio (${probe.durationSeconds.toFixed(2)} s)`);
    }
    const length = Math.min(wanted ?? Infinity, probe.durationSeconds - start);
    const filters = [`atrim=start=${num(start)}:duration=${num(length)}`, 'asetpts=PTS-STARTPTS'];
    const f = Math.min(fade, length / 2);
    if (f > 0) filters.push(`afade=t=in:st=0:d=${num(f)}`, `afade=t=out:st=${num(length - f)}:d=${num(f)}`);
    const data = await ffmpegToWav(['-i', file, '-map', '0:a:0', '-af', filters.join(',')], path.join(ctx.tmpDir, 'trimmed.wav'), ctx, {
      shape: { seconds: length, sampleRate: probe.sampleRate, channels: probe.channels },
    });
    ctx.progress(1, 'done');
    return { result: [wavOutput(data, 'trimmed.wav')] };
  },
};
