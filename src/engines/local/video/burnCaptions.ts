import fs from 'node:fs/promises';
import path from 'node:path';
import { runInThread } from '../threads.js';
import { EngineInputError } from '../../types.js';
import { cuesWithin, parseCaptions } from './captions/cues.js';
import { captionFontPath } from './captions/font.js';
import type { CaptionStrip, CaptionStyle } from './captions/render.js';
import { AAC, H264, capSize, fileOutput } from './encode.js';
import { colorInput, optionalNumber, stage, stringInput, videoEngine } from './engine.js';
import { loadVideo } from './inputs.js';
import { MAX_SECONDS } from './limits.js';
import { ffmpeg } from './run.js';

/** Each cue is one more ffmpeg input and overlay; beyond this a caption file is better split. */
export const MAX_CUES = 200;

// Same extension as this file (.ts under tsx, .js if compiled), so the worker imports the right module.
const RENDER_MODULE = new URL(`./captions/render${path.extname(new URL(import.meta.url).pathname)}`, import.meta.url).href;

/**
 * Overlays strip k (input k+1) at its height while its cue is on screen: from its start up to, not
 * including, its end, so back-to-back cues never share a frame.
 */
export function captionGraph(w: number, h: number, strips: Array<{ y: number; start: number; end: number }>): string {
  const parts = [`[0:v]scale=${w}:${h},setsar=1[c0]`];
  strips.forEach((s, k) => {
    const last = k === strips.length - 1;
    parts.push(`[c${k}][${k + 1}:v]overlay=x=0:y=${s.y}:enable='gte(t,${s.start.toFixed(3)})*lt(t,${s.end.toFixed(3)})'${last ? ',format=yuv420p[v]' : `[c${k + 1}]`}`);
  });
  if (strips.length === 0) parts[0] += ',format=yuv420p[v]';
  return parts.join(';');
}

export const burnCaptionsEngine = videoEngine({
  id: 'video-burn-captions',
  extraRequirements: ['npm packages @napi-rs/canvas (drawing) and dejavu-fonts-ttf (the caption font)'],
  async extraAvailability() {
    try {
      await import('@napi-rs/canvas');
    } catch (e) {
      return { available: false, reason: `@napi-rs/canvas does not load: ${(e as Error).message}; run npm ci` };
    }
    return captionFontPath() ? { available: true } : { available: false, reason: 'the caption font is missing: run npm ci (package dejavu-fonts-ttf)' };
  },
  async run(input, ctx) {
    const source = typeof input.captions === 'string' ? input.captions : '';
    if (!source.trim()) throw new EngineInputError('captions is empty');
    const video = await loadVideo(ctx, String(input.video_url), 'video_url');
    const seconds = Math.min(MAX_SECONDS, video.probe.durationSeconds!);
    const cues = cuesWithin(parseCaptions(source, seconds), seconds);
    if (cues.length === 0) throw new EngineInputError(`no caption falls within the video's first ${seconds.toFixed(1)} s (check the SRT/WebVTT timings)`);
    if (cues.length > MAX_CUES) throw new EngineInputError(`${cues.length} captions: at most ${MAX_CUES} per run`);

    const v = video.probe.video!;
    const { width, height } = capSize(v.width, v.height);
    const style: CaptionStyle = {
      width,
      height,
      fontSize: Math.round(optionalNumber(input, 'font_size') ?? Math.max(12, height * 0.055)),
      color: colorInput(input, 'text_color', '#ffffff'),
      style: stringInput(input, 'style', 'outline') === 'box' ? 'box' : 'outline',
      position: (['top', 'middle'].includes(String(input.position)) ? input.position : 'bottom') as CaptionStyle['position'],
    };
    ctx.progress(0.1, 'drawing captions');
    const strips = await runInThread<CaptionStrip[]>('video-captions', RENDER_MODULE, 'renderCaptionStrips', [cues.map((c) => c.text), style], { signal: ctx.signal });
    const files: string[] = [];
    for (const [k, s] of strips.entries()) {
      const file = path.join(ctx.tmpDir, `caption-${k}.png`);
      await fs.writeFile(file, s.png);
      files.push(file);
    }

    const fps = Math.min(60, Math.round(v.fps ?? 30));
    const out = path.join(ctx.tmpDir, 'captioned.mp4');
    const graph = captionGraph(width, height, strips.map((s, k) => ({ y: s.y, start: cues[k]!.start, end: cues[k]!.end })));
    const args = ['-i', video.file, ...files.flatMap((f) => ['-i', f]), '-filter_complex', graph, '-map', '[v]', ...H264, '-r', String(fps)];
    if (video.probe.audio) args.push('-map', '0:a:0', ...AAC);
    args.push('-t', seconds.toFixed(3), out);
    await ffmpeg(args, { signal: ctx.signal, deadline: ctx.deadline, expectedSeconds: seconds, onProgress: stage(ctx, 0.2, 0.95, 'encoding') });
    return { result: [await fileOutput(out, 'video/mp4', 'captioned.mp4', ctx.signal)] };
  },
});
