import path from 'node:path';
import { EngineInputError } from '../../types.js';
import { AAC, H264, capSize, fileOutput, fitFilter } from './encode.js';
import { numberInput, optionalNumber, stage, videoEngine } from './engine.js';
import { loadVideo, type LoadedMedia } from './inputs.js';
import { MAX_SECONDS } from './limits.js';
import { ffmpeg } from './run.js';

/**
 * One graph that brings every clip to the same size (letterboxed), frame rate, pixel format and audio
 * layout, then concatenates them. Clips without sound get silence of their own length, so the joined
 * audio stays in step with the pictures.
 */
export function mergeGraph(clips: Array<{ seconds: number; hasAudio: boolean }>, w: number, h: number, fps: number): string {
  const parts: string[] = [];
  clips.forEach((c, i) => {
    parts.push(`[${i}:v]${fitFilter(w, h, 'contain')},fps=${fps},format=yuv420p,setpts=PTS-STARTPTS[v${i}]`);
    const audio = c.hasAudio
      ? `[${i}:a]aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo,apad`
      : 'anullsrc=r=48000:cl=stereo';
    parts.push(`${audio},atrim=end=${c.seconds.toFixed(6)},asetpts=PTS-STARTPTS[a${i}]`);
  });
  parts.push(`${clips.map((_, i) => `[v${i}][a${i}]`).join('')}concat=n=${clips.length}:v=1:a=1[v][a]`);
  return parts.join(';');
}

export const mergeEngine = videoEngine({
  id: 'video-merge',
  async run(input, ctx) {
    const urls = Array.isArray(input.video_urls) ? input.video_urls.map(String) : [];
    if (urls.length < 2) throw new EngineInputError('video_urls needs at least two videos to merge');
    const clips: LoadedMedia[] = [];
    for (let i = 0; i < urls.length; i++) {
      clips.push(await loadVideo(ctx, urls[i]!, `video_urls[${i}]`, `clip-${i}`));
      ctx.progress(0.15 * ((i + 1) / urls.length), 'reading videos');
    }
    const first = clips[0]!.probe.video!;
    const { width: w, height: h } = capSize(optionalNumber(input, 'width') ?? first.width, optionalNumber(input, 'height') ?? first.height);
    const fps = Math.round(numberInput(input, 'fps', 30));
    const lengths = clips.map((c) => c.probe.durationSeconds!);
    const total = Math.min(MAX_SECONDS, lengths.reduce((a, b) => a + b, 0));
    if (total < lengths.reduce((a, b) => a + b, 0)) ctx.log.warn('merged length is over the limit; the output stops there', { limit: MAX_SECONDS });

    const graph = mergeGraph(clips.map((c, i) => ({ seconds: lengths[i]!, hasAudio: !!c.probe.audio })), w, h, fps);
    const out = path.join(ctx.tmpDir, 'merged.mp4');
    await ffmpeg([...clips.flatMap((c) => ['-i', c.file]), '-filter_complex', graph, '-map', '[v]', '-map', '[a]', ...H264, '-r', String(fps), ...AAC, '-t', total.toFixed(3), out], {
      signal: ctx.signal, deadline: ctx.deadline, expectedSeconds: total, onProgress: stage(ctx, 0.15, 0.95, 'joining'),
    });
    return { result: [await fileOutput(out, 'video/mp4', 'merged.mp4', ctx.signal)] };
  },
});
