import path from 'node:path';
import { EngineInputError } from '../../types.js';
import { H264, capSize, fileOutput, soundtrackArgs } from './encode.js';
import { numberInput, stage, stringInput, videoEngine } from './engine.js';
import { loadAudio, loadImage } from './inputs.js';
import { MAX_SECONDS } from './limits.js';
import { ffmpeg } from './run.js';

export const KEN_BURNS_MOTIONS = ['zoom_in', 'zoom_out', 'pan_left', 'pan_right', 'pan_up', 'pan_down'] as const;
type Motion = (typeof KEN_BURNS_MOTIONS)[number];

/** Eased 0→1 over the clip (slow start, slow stop), as a zoompan expression of the output frame number. */
const eased = (frames: number) => `(1-cos(PI*on/${frames - 1}))/2`;

/** zoompan z/x/y expressions for a motion; `zoom` is the furthest zoom factor (≥ 1). */
export function motionExpressions(motion: Motion, zoom: number, frames: number): { z: string; x: string; y: string } {
  const p = eased(frames);
  const cx = '(iw-iw/zoom)/2';
  const cy = '(ih-ih/zoom)/2';
  switch (motion) {
    case 'zoom_in': return { z: `1+${zoom - 1}*${p}`, x: cx, y: cy };
    case 'zoom_out': return { z: `${zoom}-${zoom - 1}*${p}`, x: cx, y: cy };
    case 'pan_left': return { z: `${zoom}`, x: `(iw-iw/zoom)*(1-${p})`, y: cy };
    case 'pan_right': return { z: `${zoom}`, x: `(iw-iw/zoom)*${p}`, y: cy };
    case 'pan_up': return { z: `${zoom}`, x: cx, y: `(ih-ih/zoom)*(1-${p})` };
    case 'pan_down': return { z: `${zoom}`, x: cx, y: `(ih-ih/zoom)*${p}` };
  }
}

/**
 * zoompan crops at whole pixels of its input, which makes slow motion judder. Working on an upscaled copy
 * turns each whole-pixel step into a fraction of an output pixel; the factor shrinks for big outputs to
 * bound the per-frame work (about 16 megapixels of source).
 */
export function oversample(width: number, height: number): number {
  return Math.max(2, Math.min(4, Math.floor(Math.sqrt(16_000_000 / (width * height)))));
}

export const kenBurnsEngine = videoEngine({
  id: 'video-ken-burns',
  async run(input, ctx) {
    const seconds = Math.min(MAX_SECONDS, numberInput(input, 'duration', 5));
    const fps = Math.round(numberInput(input, 'fps', 30));
    const { width, height } = capSize(numberInput(input, 'width', 1280), numberInput(input, 'height', 720));
    const motion = stringInput(input, 'motion', 'zoom_in') as Motion;
    if (!KEN_BURNS_MOTIONS.includes(motion)) throw new EngineInputError(`motion must be one of ${KEN_BURNS_MOTIONS.join(', ')}`);
    const zoom = Math.min(2, Math.max(1.05, numberInput(input, 'zoom', 1.3)));

    const image = await loadImage(ctx, String(input.image_url), 'image_url');
    const audioUrl = typeof input.audio_url === 'string' && input.audio_url ? input.audio_url : undefined;
    const audio = audioUrl ? await loadAudio(ctx, audioUrl, 'audio_url') : undefined;

    const frames = Math.max(2, Math.round(seconds * fps));
    const k = oversample(width, height);
    const e = motionExpressions(motion, zoom, frames);
    const graph = [
      `[0:v]scale=${width * k}:${height * k}:force_original_aspect_ratio=increase,crop=${width * k}:${height * k},setsar=1`,
      `zoompan=z='${e.z}':x='${e.x}':y='${e.y}':d=${frames}:s=${width}x${height}:fps=${fps}`,
      'format=yuv420p[v]',
    ].join(',');
    const out = path.join(ctx.tmpDir, 'ken-burns.mp4');
    const args = ['-i', image.file];
    if (audio) args.push('-i', audio.file);
    args.push('-filter_complex', graph, '-map', '[v]', ...H264, '-r', String(fps));
    if (audio) args.push(...soundtrackArgs(1, frames / fps));
    args.push('-t', (frames / fps).toFixed(3), out);
    await ffmpeg(args, { signal: ctx.signal, deadline: ctx.deadline, expectedSeconds: frames / fps, onProgress: stage(ctx, 0.1, 0.95, 'rendering') });
    return { result: [await fileOutput(out, 'video/mp4', 'ken-burns.mp4', ctx.signal)] };
  },
});
