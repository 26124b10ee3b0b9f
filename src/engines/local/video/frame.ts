import fs from 'node:fs/promises';
import path from 'node:path';
import { EngineInputError } from '../../types.js';
import { capSize, fileOutput } from './encode.js';
import { numberInput, videoEngine } from './engine.js';
import { loadVideo } from './inputs.js';
import { ffmpeg } from './run.js';

export const extractFrameEngine = videoEngine({
  id: 'video-extract-frame',
  async run(input, ctx) {
    const at = numberInput(input, 'timestamp', 0);
    const video = await loadVideo(ctx, String(input.video_url), 'video_url');
    const length = video.probe.durationSeconds!;
    if (at > length) throw new EngineInputError(`timestamp (${at} s) is past the end of the video (${length.toFixed(2)} s)`);
    const v = video.probe.video!;
    const { width, height } = capSize(v.width, v.height);
    const out = path.join(ctx.tmpDir, 'frame.png');
    const job = { signal: ctx.signal, deadline: ctx.deadline };
    const vf = ['-vf', `scale=${width}:${height}`];
    ctx.progress(0.3, 'decoding');
    await ffmpeg(['-ss', at.toFixed(3), '-i', video.file, '-map', '0:v:0', '-frames:v', '1', ...vf, '-update', '1', out], job);
    // Seeking to (or just before) the very end can land after the last frame and write nothing: then take
    // the last frame by decoding the final second and keeping the frame written last.
    const wrote = await fs.stat(out).then((s) => s.size > 0, () => false);
    if (!wrote) await ffmpeg(['-sseof', '-1', '-i', video.file, '-map', '0:v:0', ...vf, '-update', '1', out], job);
    return { result: [await fileOutput(out, 'image/png', 'frame.png', ctx.signal)] };
  },
});
