import path from 'node:path';
import { EngineInputError } from '../../types.js';
import { AAC, H264, capSize, fileOutput } from './encode.js';
import { optionalNumber, stage, videoEngine } from './engine.js';
import { loadVideo } from './inputs.js';
import { MAX_SECONDS } from './limits.js';
import { ffmpeg } from './run.js';

/** Rounding slack when a requested end meets the end of the file. */
const SLACK = 0.1;

/** The kept span from `start` with `end` or `duration` (end wins), checked against the input's length. */
export function trimSpan(length: number, start: number, end: number | undefined, duration: number | undefined): { start: number; seconds: number } {
  if (start >= length) throw new EngineInputError(`start (${start} s) is at or past the end of the video (${length.toFixed(2)} s)`);
  let stop = length;
  if (end !== undefined) {
    if (end <= start) throw new EngineInputError(`end (${end} s) must be after start (${start} s)`);
    if (end > length + SLACK) throw new EngineInputError(`end (${end} s) is past the end of the video (${length.toFixed(2)} s)`);
    stop = Math.min(end, length);
  } else if (duration !== undefined) {
    if (start + duration > length + SLACK) throw new EngineInputError(`start + duration (${start + duration} s) is past the end of the video (${length.toFixed(2)} s)`);
    stop = Math.min(start + duration, length);
  }
  return { start, seconds: Math.min(MAX_SECONDS, stop - start) };
}

export const trimEngine = videoEngine({
  id: 'video-trim',
  async run(input, ctx) {
    const video = await loadVideo(ctx, String(input.video_url), 'video_url');
    const span = trimSpan(video.probe.durationSeconds!, optionalNumber(input, 'start') ?? 0, optionalNumber(input, 'end'), optionalNumber(input, 'duration'));
    const v = video.probe.video!;
    const { width, height } = capSize(v.width, v.height);
    const fps = Math.min(60, Math.round(v.fps ?? 30));
    const out = path.join(ctx.tmpDir, 'trimmed.mp4');
    // Re-encoded, not stream-copied: a copy can only cut at keyframes, seconds away from the asked time.
    const args = ['-ss', span.start.toFixed(3), '-i', video.file, '-t', span.seconds.toFixed(3), '-map', '0:v:0',
      '-vf', `scale=${width}:${height},setsar=1`, ...H264, '-r', String(fps)];
    if (video.probe.audio) args.push('-map', '0:a:0', ...AAC);
    args.push(out);
    await ffmpeg(args, { signal: ctx.signal, deadline: ctx.deadline, expectedSeconds: span.seconds, onProgress: stage(ctx, 0.1, 0.95, 'trimming') });
    return { result: [await fileOutput(out, 'video/mp4', 'trimmed.mp4', ctx.signal)] };
  },
});
