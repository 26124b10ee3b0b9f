import path from 'node:path';
import { EngineInputError } from '../../types.js';
import { fileOutput } from './encode.js';
import { stage, stringInput, videoEngine } from './engine.js';
import { loadVideo } from './inputs.js';
import { MAX_SECONDS } from './limits.js';
import { decodedDuration } from './probe.js';
import { ffmpeg } from './run.js';

const FORMATS = {
  wav: { args: ['-c:a', 'pcm_s16le'], contentType: 'audio/wav' },
  // VBR quality 2 (~190 kb/s): transparent for speech and most music.
  mp3: { args: ['-c:a', 'libmp3lame', '-q:a', '2'], contentType: 'audio/mpeg' },
  // AAC-LC in a raw ADTS stream (.aac), as players and the hosted format option expect.
  aac: { args: ['-c:a', 'aac', '-b:a', '192k', '-f', 'adts'], contentType: 'audio/aac' },
} as const;

/** extract_audio with the hosted inputs (catalog/models/utilities.ts); the output is keyed `audio_url`. */

export const extractAudioEngine = videoEngine({
  id: 'video-extract-audio',
  async run(input, ctx) {
    const format = stringInput(input, 'format', 'mp3') as keyof typeof FORMATS;
    if (!(format in FORMATS)) throw new EngineInputError(`format must be one of ${Object.keys(FORMATS).join(', ')}`);
    const video = await loadVideo(ctx, String(input.video_url), 'video_url');
    if (!video.probe.audio) throw new EngineInputError('video_url has no audio track to extract');
    const seconds = Math.min(MAX_SECONDS, video.probe.durationSeconds!);
    const name = `audio.${format}`;
    const out = path.join(ctx.tmpDir, name);
    await ffmpeg(['-i', video.file, '-map', '0:a:0', '-vn', ...FORMATS[format].args, '-t', seconds.toFixed(3), out], {
      signal: ctx.signal, deadline: ctx.deadline, expectedSeconds: seconds, onProgress: stage(ctx, 0.1, 0.95, 'extracting'),
    });
    const file = await fileOutput(out, FORMATS[format].contentType, name, ctx.signal);
    // An ADTS stream's header only estimates its length from the bit rate: measure it.
    if (format === 'aac') {
      const seconds = await decodedDuration(out, ctx.signal);
      if (seconds !== undefined) file.durationSeconds = Math.round(seconds * 1000) / 1000;
    }
    return { audio_url: [file] };
  },
});
