import path from 'node:path';
import { EngineError, EngineInputError, type Engine } from '../../types.js';
import { ffmpegInfo, runBinary } from '../ffmpeg.js';
import { ffmpegAvailability, ffmpegRequirement, fetchAudioFile, ffmpegToWav, outputLimit, probeAudio, timeLeft, wavOutput, type AudioProbe } from './audioIo.js';
import { checkDecodedSize, pcmBytes } from './limits.js';
import { num, toCommonFormat } from './filters.js';

const RATE = 44100;

/**
 * Layers audio files on top of each other. Every input is padded with silence without end, so amix
 * always sums the same number of inputs and its 1/N scaling is constant (undone by `volume=N`); atrim
 * then ends the stream at the chosen length. A second pass sets the peak: to -1 dBFS when normalising, or just
 * below full scale when the sum would clip.
 */
export const mixAudioEngine: Engine = {
  id: 'audio-mix',
  requirements: [ffmpegRequirement],
  availability: ffmpegAvailability,

  async execute(req, ctx) {
    const urls = req.input.audio_urls;
    if (!Array.isArray(urls) || urls.length < 2) throw new EngineInputError('audio_urls needs at least two audio files');
    const volumes = (req.input.volumes as unknown[] | undefined) ?? [];
    if (!Array.isArray(volumes) || volumes.some((v) => typeof v !== 'number' || !(v >= 0 && v <= 4))) {
      throw new EngineInputError('volumes must be a list of numbers from 0 to 4, one per input (1 = unchanged)');
    }
    if (volumes.length > urls.length) throw new EngineInputError('volumes has more entries than audio_urls');
    const lengthMode = String(req.input.length ?? 'longest');
    const normalize = req.input.normalize !== false;

    const probes: AudioProbe[] = [];
    for (const [i, url] of urls.entries()) {
      const file = await fetchAudioFile(ctx, String(url), `audio${i}`);
      probes.push(await probeAudio(file, `audio_urls[${i}]`, ctx.signal));
      ctx.progress((0.4 * (i + 1)) / urls.length, `read input ${i + 1}/${urls.length}`);
    }
    const lengths = probes.map((p) => p.durationSeconds);
    const length = lengthMode === 'shortest' ? Math.min(...lengths) : lengthMode === 'first' ? lengths[0]! : Math.max(...lengths);

    const n = probes.length;
    const chains = probes.map((p, i) => `[${i}:a:0]${toCommonFormat(p.channels, RATE, 'stereo')},volume=${num(Number(volumes[i] ?? 1))},apad[a${i}]`);
    const graph = `${chains.join(';')};${probes.map((_, i) => `[a${i}]`).join('')}amix=inputs=${n}:duration=longest:dropout_transition=0,volume=${n},atrim=duration=${num(length)}[out]`;
    // The float sum of pass 1 is twice the 16-bit result: both are checked before either is written.
    const limit = outputLimit(ctx);
    checkDecodedSize('the mix', pcmBytes(length, RATE, 2), limit);
    const summed = path.join(ctx.tmpDir, 'sum.wav');
    const info = ffmpegInfo();
    if (!info) throw new EngineError('ffmpeg is not available');
    // Pass 1: float WAV (nothing clips yet) and the peak level, read from volumedetect's log at info level.
    const pass1 = await runBinary(info.ffmpeg, [
      '-hide_banner', '-nostdin', '-y', ...probes.flatMap((p) => ['-i', p.file]),
      '-filter_complex', `${graph};[out]asplit[keep][measure];[measure]volumedetect,anullsink`,
      '-map', '[keep]', '-c:a', 'pcm_f32le', '-fs', String(2 * limit + 1), summed,
    ], { signal: ctx.signal, timeoutMs: timeLeft(ctx) });
    const peakDb = Number(/max_volume: (-?[\d.]+|-inf) dB/.exec(pass1.stderr)?.[1] ?? 0);
    ctx.progress(0.7, 'mixed');
    const gainDb = !Number.isFinite(peakDb) ? 0 : normalize ? -1 - peakDb : Math.min(0, -0.1 - peakDb);
    const data = await ffmpegToWav(['-i', summed, '-af', `volume=${num(gainDb)}dB`], path.join(ctx.tmpDir, 'mix.wav'), ctx, {
      shape: { seconds: length, sampleRate: RATE, channels: 2 },
    });
    ctx.progress(1, 'done');
    return { result: [wavOutput(data, 'mix.wav')] };
  },
};
