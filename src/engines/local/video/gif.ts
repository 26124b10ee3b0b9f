import path from 'node:path';
import { EngineInputError } from '../../types.js';
import { even, fileOutput } from './encode.js';
import { numberInput, optionalNumber, stage, videoEngine } from './engine.js';
import { loadVideo } from './inputs.js';
import { MAX_GIF_SECONDS, MAX_GIF_WIDTH } from './limits.js';
import { ffmpeg } from './run.js';

/**
 * GIF through a palette made from the clip itself (palettegen → paletteuse in one graph): far truer colours
 * than ffmpeg's fixed default palette. Never upscales.
 */
export function gifGraph(fps: number, width: number): string {
  return `[0:v]fps=${fps},scale='min(${width},iw)':-2:flags=lanczos,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer:bayer_scale=3[g]`;
}

export const gifEngine = videoEngine({
  id: 'video-to-gif',
  async run(input, ctx) {
    const fps = Math.round(numberInput(input, 'fps', 10));
    const width = even(Math.min(MAX_GIF_WIDTH, numberInput(input, 'width', 480)));
    const start = optionalNumber(input, 'start') ?? 0;
    const video = await loadVideo(ctx, String(input.video_url), 'video_url');
    const length = video.probe.durationSeconds!;
    if (start >= length) throw new EngineInputError(`start (${start} s) is at or past the end of the video (${length.toFixed(2)} s)`);
    const seconds = Math.min(MAX_GIF_SECONDS, optionalNumber(input, 'duration') ?? length - start, length - start);
    const out = path.join(ctx.tmpDir, 'clip.gif');
    await ffmpeg(['-ss', start.toFixed(3), '-t', seconds.toFixed(3), '-i', video.file, '-filter_complex', gifGraph(fps, width), '-map', '[g]', '-loop', '0', out], {
      signal: ctx.signal, deadline: ctx.deadline, expectedSeconds: seconds, onProgress: stage(ctx, 0.1, 0.95, 'making the GIF'),
    });
    return { result: [await fileOutput(out, 'image/gif', 'clip.gif', ctx.signal)] };
  },
});
