import path from 'node:path';
import { EngineInputError, type Engine } from '../../types.js';
import { toCommonFormat } from './filters.js';
import { ffmpegAvailability, ffmpegRequirement, fetchAudioFile, ffmpegToWav, probeAudio, wavOutput, type AudioProbe } from './audioIo.js';

/** Joins audio files end to end (optionally with silence between), converting them to one format first. */
export const concatAudioEngine: Engine = {
  id: 'audio-concat',
  requirements: [ffmpegRequirement],
  availability: ffmpegAvailability,

  async execute(req, ctx) {
    const urls = req.input.audio_urls;
    if (!Array.isArray(urls) || urls.length < 2) throw new EngineInputError('audio_urls needs at least two audio files');
    const gap = Number(req.input.gap ?? 0);
    if (!(gap >= 0 && gap <= 30)) throw new EngineInputError('gap must be from 0 to 30 seconds');

    const probes: AudioProbe[] = [];
    for (const [i, url] of urls.entries()) {
      const file = await fetchAudioFile(ctx, String(url), `audio${i}`);
      probes.push(await probeAudio(file, `audio_urls[${i}]`, ctx.signal));
      ctx.progress((0.5 * (i + 1)) / urls.length, `read input ${i + 1}/${urls.length}`);
    }
    // The concat filter needs identical formats: use the highest input rate, stereo if any input is.
    const rate = Math.max(...probes.map((p) => p.sampleRate));
    const layout = probes.some((p) => p.channels > 1) ? 'stereo' : 'mono';
    const padSamples = Math.round(gap * rate);
    const chains = probes.map((p, i) => {
      const pad = gap > 0 && i < probes.length - 1 ? `,apad=pad_len=${padSamples}` : '';
      return `[${i}:a:0]${toCommonFormat(p.channels, rate, layout)}${pad}[a${i}]`;
    });
    const graph = `${chains.join(';')};${probes.map((_, i) => `[a${i}]`).join('')}concat=n=${probes.length}:v=0:a=1[out]`;
    const inputs = probes.flatMap((p) => ['-i', p.file]);
    const data = await ffmpegToWav([...inputs, '-filter_complex', graph, '-map', '[out]'], path.join(ctx.tmpDir, 'joined.wav'), ctx, {
      shape: { seconds: probes.reduce((t, p) => t + p.durationSeconds, 0) + gap * (probes.length - 1), sampleRate: rate, channels: layout === 'stereo' ? 2 : 1 },
    });
    ctx.progress(1, 'done');
    return { result: [wavOutput(data, 'joined.wav')] };
  },
};
