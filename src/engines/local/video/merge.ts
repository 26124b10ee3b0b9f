import path from 'node:path';
import { EngineInputError } from '../../types.js';
import { AAC, H264, capSize, fileOutput, fitFilter } from './encode.js';
import { stage, stringInput, videoEngine } from './engine.js';
import { videoFfmpegInfo } from './ffmpegBuild.js';
import { loadVideo, type LoadedMedia } from './inputs.js';
import { MAX_SECONDS } from './limits.js';
import { ffmpeg } from './run.js';

export type MergeTransition = 'none' | 'fade' | 'dissolve';
export const TRANSITIONS: readonly MergeTransition[] = ['none', 'fade', 'dissolve'];

/** Longest transition; shorter when a clip is brief (at most a third of the shortest clip). */
export const TRANSITION_SECONDS = 0.5;

interface Clip {
  seconds: number;
  hasAudio: boolean;
}

/** Each clip's sound, resampled to one layout and made exactly as long as its pictures: `[a{i}]`. */
function audioParts(clips: Clip[]): string[] {
  return clips.map((c, i) => {
    const audio = c.hasAudio ? `[${i}:a]aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo,apad` : 'anullsrc=r=48000:cl=stereo';
    return `${audio},atrim=end=${c.seconds.toFixed(6)},asetpts=PTS-STARTPTS[a${i}]`;
  });
}

/**
 * One graph that brings every clip to the same size (letterboxed), frame rate, pixel format and audio
 * layout, then concatenates them. Clips without sound get silence of their own length, so the joined
 * audio stays in step with the pictures.
 */
export function mergeGraph(clips: Clip[], w: number, h: number, fps: number): string {
  const parts: string[] = clips.map((_, i) => `[${i}:v]${fitFilter(w, h, 'contain')},fps=${fps},format=yuv420p,setpts=PTS-STARTPTS[v${i}]`);
  parts.push(...audioParts(clips));
  parts.push(`${clips.map((_, i) => `[v${i}][a${i}]`).join('')}concat=n=${clips.length}:v=1:a=1[v][a]`);
  return parts.join(';');
}

/** The transition length for these clips, in seconds. */
export function transitionSeconds(clips: Clip[]): number {
  return Math.min(TRANSITION_SECONDS, Math.min(...clips.map((c) => c.seconds)) / 3);
}

/** The sound of consecutive clips crossfaded over `t` seconds, as `[a]`. */
function audioCrossfades(n: number, t: number): string[] {
  const parts: string[] = [];
  let prev = 'a0';
  for (let i = 1; i < n; i++) {
    const out = i === n - 1 ? 'a' : `ax${i}`;
    parts.push(`[${prev}][a${i}]acrossfade=d=${t.toFixed(6)}:c1=tri:c2=tri[${out}]`);
    prev = out;
  }
  return parts;
}

/**
 * fade / dissolve with ffmpeg's xfade (ffmpeg ≥ 4.3, the system build): each clip padded with its last
 * frame and cut to exactly its probed length, so every offset (the running length minus the overlaps so
 * far) falls where the graph expects it.
 */
export function xfadeGraph(clips: Clip[], w: number, h: number, fps: number, transition: Exclude<MergeTransition, 'none'>): string {
  const t = transitionSeconds(clips);
  const parts: string[] = clips.map((c, i) =>
    `[${i}:v]${fitFilter(w, h, 'contain')},fps=${fps},format=yuv420p,tpad=stop_mode=clone:stop_duration=1,trim=duration=${c.seconds.toFixed(6)},setpts=PTS-STARTPTS[v${i}]`);
  parts.push(...audioParts(clips));
  let prev = 'v0';
  let length = clips[0]!.seconds;
  for (let i = 1; i < clips.length; i++) {
    const out = i === clips.length - 1 ? 'v' : `vx${i}`;
    parts.push(`[${prev}][v${i}]xfade=transition=${transition}:duration=${t.toFixed(6)}:offset=${(length - t).toFixed(6)}[${out}]`);
    length += clips[i]!.seconds - t;
    prev = out;
  }
  parts.push(...audioCrossfades(clips.length, t));
  return parts.join(';');
}

/**
 * The blend expression of a transition at progress P (0 → 1 over the overlap; A the outgoing clip, B the
 * incoming one). dissolve: each pixel switches from A to B once P passes its own fixed random threshold
 * (a hash of its position, the same on every frame), as xfade's dissolve does.
 */
export function blendExpression(transition: Exclude<MergeTransition, 'none'>, t: number, fps: number): string {
  const p = `min(1,(T+${(0.5 / fps).toFixed(6)})/${t.toFixed(6)})`;
  return transition === 'fade'
    ? `A*(1-${p})+B*${p}`
    : `if(lt(mod(abs(sin(X*12.9898+Y*78.233)*43758.5453),1),${p}),B,A)`;
}

/**
 * fade / dissolve without xfade (the static 4.1 build): every clip is split into its head (the overlap
 * with the clip before), body and tail (the overlap with the clip after); each tail and the next head are
 * blended frame by frame, and bodies and blends are concatenated. Frames are 4:4:4 while blending so a
 * dissolve switches luma and colour of a pixel together.
 */
export function blendGraph(clips: Clip[], w: number, h: number, fps: number, transition: Exclude<MergeTransition, 'none'>): string {
  const t = transitionSeconds(clips);
  const n = clips.length;
  const parts: string[] = [];
  const seq: string[] = [];
  const cut = (src: string, start: number, end: number | undefined, out: string) =>
    `[${src}]trim=start=${start.toFixed(6)}${end === undefined ? '' : `:end=${end.toFixed(6)}`},setpts=PTS-STARTPTS[${out}]`;
  clips.forEach((c, i) => {
    const pieces = [i > 0 ? `h${i}` : null, `b${i}`, i < n - 1 ? `t${i}` : null].filter((x): x is string => x !== null);
    parts.push(`[${i}:v]${fitFilter(w, h, 'contain')},fps=${fps},format=yuv444p,setpts=PTS-STARTPTS,split=${pieces.length}${pieces.map((p) => `[s${i}${p}]`).join('')}`);
    if (i > 0) parts.push(cut(`s${i}h${i}`, 0, t, `h${i}`));
    parts.push(cut(`s${i}b${i}`, i > 0 ? t : 0, i < n - 1 ? c.seconds - t : undefined, `b${i}`));
    if (i < n - 1) parts.push(cut(`s${i}t${i}`, c.seconds - t, undefined, `t${i}`));
  });
  for (let i = 0; i < n; i++) {
    seq.push(`b${i}`);
    if (i < n - 1) {
      parts.push(`[t${i}][h${i + 1}]blend=all_expr='${blendExpression(transition, t, fps)}':shortest=1[x${i}]`);
      seq.push(`x${i}`);
    }
  }
  parts.push(`${seq.map((s) => `[${s}]`).join('')}concat=n=${seq.length}:v=1:a=0,format=yuv420p[v]`);
  parts.push(...audioParts(clips));
  parts.push(...audioCrossfades(n, t));
  return parts.join(';');
}

/** merge_videos with the hosted inputs (catalog/models/utilities.ts): `video_urls`, `transition`; output `video_url`. */
export const mergeEngine = videoEngine({
  id: 'video-merge',
  async run(input, ctx) {
    const urls = Array.isArray(input.video_urls) ? input.video_urls.map(String) : [];
    if (urls.length < 2) throw new EngineInputError('video_urls needs at least two videos to merge');
    const transition = stringInput(input, 'transition', 'none') as MergeTransition;
    if (!TRANSITIONS.includes(transition)) throw new EngineInputError(`transition must be one of ${TRANSITIONS.join(', ')}`);
    const loaded: LoadedMedia[] = [];
    for (let i = 0; i < urls.length; i++) {
      loaded.push(await loadVideo(ctx, urls[i]!, `video_urls[${i}]`, `clip-${i}`));
      ctx.progress(0.15 * ((i + 1) / urls.length), 'reading videos');
    }
    const first = loaded[0]!.probe.video!;
    const { width: w, height: h } = capSize(first.width, first.height);
    // The first clip's frame rate, within what players and encoders handle well.
    const fps = Math.min(60, Math.max(12, Math.round(first.fps ?? 30)));
    const clips: Clip[] = loaded.map((c) => ({ seconds: c.probe.durationSeconds!, hasAudio: !!c.probe.audio }));
    const overlap = transition === 'none' ? 0 : transitionSeconds(clips) * (clips.length - 1);
    const full = clips.reduce((a, c) => a + c.seconds, 0) - overlap;
    const total = Math.min(MAX_SECONDS, full);
    if (total < full) ctx.log.warn('merged length is over the limit; the output stops there', { limit: MAX_SECONDS });

    const graph = transition === 'none' ? mergeGraph(clips, w, h, fps)
      : videoFfmpegInfo()?.system === true ? xfadeGraph(clips, w, h, fps, transition)
        : blendGraph(clips, w, h, fps, transition);
    const out = path.join(ctx.tmpDir, 'merged.mp4');
    await ffmpeg([...loaded.flatMap((c) => ['-i', c.file]), '-filter_complex', graph, '-map', '[v]', '-map', '[a]', ...H264, '-r', String(fps), ...AAC, '-t', total.toFixed(3), out], {
      signal: ctx.signal, deadline: ctx.deadline, expectedSeconds: total, onProgress: stage(ctx, 0.15, 0.95, 'joining'),
    });
    return { video_url: [await fileOutput(out, 'video/mp4', 'merged.mp4', ctx.signal)] };
  },
});
