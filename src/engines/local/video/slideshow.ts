import path from 'node:path';
import { EngineInputError } from '../../types.js';
import { H264, capSize, fileOutput, fitFilter, soundtrackArgs } from './encode.js';
import { colorInput, numberInput, stage, stringInput, videoEngine } from './engine.js';
import { videoFfmpegInfo } from './ffmpegBuild.js';
import { loadAudio, loadImage } from './inputs.js';
import { MAX_SECONDS } from './limits.js';
import { ffmpeg } from './run.js';

export const SLIDESHOW_TRANSITIONS = ['crossfade', 'fade_black', 'cut'] as const;
type Transition = (typeof SLIDESHOW_TRANSITIONS)[number];

export interface SlidePlan {
  /** Frames each slide is on screen, transitions included. */
  frames: number[];
  /** Frames of each crossfade (0 for cut); for fade_black, frames of each fade out + fade in together. */
  transitionFrames: number;
  totalFrames: number;
}

/**
 * Splits the total length between slides in whole frames, so the output is exactly `seconds` long
 * whatever the rounding. Crossfades overlap neighbours, so those slides are longer by the overlap.
 */
export function planSlides(n: number, seconds: number, fps: number, transition: Transition, transitionSeconds: number): SlidePlan {
  const total = Math.round(seconds * fps);
  const perSlide = total / n;
  const t = transition === 'cut' || n === 1 && transition === 'crossfade' ? 0
    : Math.max(1, Math.min(Math.round(transitionSeconds * fps), Math.floor(perSlide / 3)));
  const overlap = transition === 'crossfade' ? t : 0;
  const sum = total + (n - 1) * overlap;
  const frames: number[] = [];
  for (let k = 0; k < n; k++) frames.push(Math.round(((k + 1) * sum) / n) - Math.round((k * sum) / n));
  return { frames, transitionFrames: t, totalFrames: total };
}

/**
 * One filter chain per slide (already fitted to the frame when loaded): its single decoded frame repeated
 * by the loop filter to its frame count. Half the time of `-loop 1` on the input, which decodes the PNG
 * again for every frame (20 s of 1080p: 15 s against 31 s here).
 */
function slideChain(i: number, frames: number, fps: number): string {
  return `[${i}:v]setsar=1,loop=loop=${frames - 1}:size=1:start=0,setpts=N/(${fps}*TB),fps=${fps}`;
}

/**
 * The filter graph for the chosen transition. Crossfades use xfade where the build has it (ffmpeg ≥ 4.3,
 * the system build here); the static 4.1 build gets the same picture from alpha fades overlaid on a
 * black base at each slide's start time. Fades through black and cuts use fade + concat, in both builds.
 */
export function slideshowGraph(plan: SlidePlan, o: { w: number; h: number; fps: number; transition: Transition; xfade: boolean }): string {
  const n = plan.frames.length;
  const chains = plan.frames.map((f, i) => slideChain(i, f, o.fps));
  const t = plan.transitionFrames;
  if (o.transition === 'crossfade' && n > 1) {
    const starts: number[] = [];
    let at = 0;
    for (const f of plan.frames) {
      starts.push(at);
      at += f - t;
    }
    if (o.xfade) {
      const parts = chains.map((c, i) => `${c},format=yuv420p[s${i}]`);
      let prev = 's0';
      for (let i = 1; i < n; i++) {
        const out = i === n - 1 ? 'v' : `x${i}`;
        parts.push(`[${prev}][s${i}]xfade=transition=fade:duration=${(t / o.fps).toFixed(6)}:offset=${(starts[i]! / o.fps).toFixed(6)}[${out}]`);
        prev = out;
      }
      return parts.join(';');
    }
    const parts = [`color=c=black:s=${o.w}x${o.h}:r=${o.fps}:d=${(plan.totalFrames / o.fps).toFixed(6)},format=yuv420p[b0]`];
    chains.forEach((c, i) => {
      const fade = i === 0 ? '' : `,fade=t=in:s=0:n=${t}:alpha=1`;
      parts.push(`${c},format=yuva420p${fade},setpts=PTS+${starts[i]}/(${o.fps}*TB)[s${i}]`);
    });
    for (let i = 0; i < n; i++) {
      parts.push(`[b${i}][s${i}]overlay=eof_action=pass:format=yuv420${i === n - 1 ? ',format=yuv420p[v]' : `[b${i + 1}]`}`);
    }
    return parts.join(';');
  }
  const half = Math.floor(t / 2);
  const parts = chains.map((c, i) => {
    const f = plan.frames[i]!;
    const fades = o.transition === 'fade_black' && half > 0 ? `,fade=t=in:s=0:n=${half},fade=t=out:s=${f - half}:n=${half}` : '';
    return `${c}${fades},format=yuv420p[s${i}]`;
  });
  parts.push(`${plan.frames.map((_, i) => `[s${i}]`).join('')}concat=n=${n}:v=1:a=0[v]`);
  return parts.join(';');
}

export const slideshowEngine = videoEngine({
  id: 'video-slideshow',
  async run(input, ctx) {
    const urls = Array.isArray(input.image_urls) ? input.image_urls.map(String) : [];
    if (urls.length === 0) throw new EngineInputError('image_urls needs at least one image');
    const seconds = Math.min(MAX_SECONDS, numberInput(input, 'duration', 10));
    if (seconds / urls.length < 0.5) {
      throw new EngineInputError(`${urls.length} images in ${seconds} s is under half a second each: raise duration or give fewer images`);
    }
    const fps = Math.round(numberInput(input, 'fps', 30));
    const { width: w, height: h } = capSize(numberInput(input, 'width', 1280), numberInput(input, 'height', 720));
    const transition = stringInput(input, 'transition', 'crossfade') as Transition;
    if (!SLIDESHOW_TRANSITIONS.includes(transition)) throw new EngineInputError(`transition must be one of ${SLIDESHOW_TRANSITIONS.join(', ')}`);
    const fit = stringInput(input, 'fit', 'cover') === 'contain' ? 'contain' : 'cover';
    const bg = `0x${colorInput(input, 'background_color', '#000000').replace('#', '')}`;

    const images = [];
    for (let i = 0; i < urls.length; i++) {
      images.push(await loadImage(ctx, urls[i]!, `image_urls[${i}]`, `slide-${i}`, fitFilter(w, h, fit, bg)));
      ctx.progress(0.2 * ((i + 1) / urls.length), 'reading images');
    }
    const audioUrl = typeof input.audio_url === 'string' && input.audio_url ? input.audio_url : undefined;
    const audio = audioUrl ? await loadAudio(ctx, audioUrl, 'audio_url') : undefined;

    const plan = planSlides(images.length, seconds, fps, transition, numberInput(input, 'transition_seconds', 0.8));
    const xfade = videoFfmpegInfo()?.system === true;
    const graph = slideshowGraph(plan, { w, h, fps, transition, xfade });
    const args: string[] = [];
    images.forEach((img) => args.push('-framerate', String(fps), '-i', img.file));
    if (audio) args.push('-i', audio.file);
    const total = plan.totalFrames / fps;
    const out = path.join(ctx.tmpDir, 'slideshow.mp4');
    args.push('-filter_complex', graph, '-map', '[v]', ...H264, '-r', String(fps));
    if (audio) args.push(...soundtrackArgs(images.length, total));
    args.push('-t', total.toFixed(3), out);
    await ffmpeg(args, { signal: ctx.signal, deadline: ctx.deadline, expectedSeconds: total, onProgress: stage(ctx, 0.2, 0.95, 'rendering') });
    return { result: [await fileOutput(out, 'video/mp4', 'slideshow.mp4', ctx.signal)] };
  },
});
