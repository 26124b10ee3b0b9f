import path from 'node:path';
import { EngineInputError } from '../../types.js';
import { AAC, H264, capSize, even, fileOutput } from './encode.js';
import { colorInput, numberInput, stage, stringInput, videoEngine } from './engine.js';
import { videoFfmpegInfo } from './ffmpegBuild.js';
import { loadAudio } from './inputs.js';
import { MAX_SECONDS } from './limits.js';
import { ffmpeg } from './run.js';

export const WAVEFORM_STYLES = ['waveform', 'spectrum', 'bars'] as const;
type Style = (typeof WAVEFORM_STYLES)[number];

const hex = (c: string) => `0x${c.replace('#', '')}`;

/**
 * The visualisation as a filter graph from the audio input to [v]. showwaves and showfreqs draw on a
 * transparent frame, laid over a solid background; showspectrum draws its own (its palette is fixed).
 * All three filters exist in both the 4.1 and 5.x builds; showfreqs takes a frame rate only in 5.x (4.1
 * emits one frame per half window, ~43/s, and the output's -r evens that out). An `fps` filter after
 * showfreqs made the 5.1 build take ~50 s for a 1.5 s clip, so the rate is set on the filter itself.
 */
export function waveformGraph(style: Style, w: number, h: number, fps: number, color: string, bg: string, system: boolean): string {
  const base = `color=c=${hex(bg)}:s=${w}x${h}:r=${fps}[bg]`;
  switch (style) {
    case 'waveform':
      return `[0:a]aformat=channel_layouts=mono,showwaves=s=${w}x${h}:mode=cline:rate=${fps}:colors=${hex(color)}:draw=full,format=rgba[fg];${base};[bg][fg]overlay=shortest=1,format=yuv420p[v]`;
    case 'bars':
      return `[0:a]aformat=channel_layouts=mono,showfreqs=s=${w}x${h}${system ? `:rate=${fps}` : ''}:mode=bar:ascale=sqrt:fscale=log:overlap=0.5:averaging=2:colors=${hex(color)},format=rgba[fg];${base};[bg][fg]overlay=shortest=1,format=yuv420p[v]`;
    case 'spectrum':
      // Drawn at half size and scaled up: 5.1's showspectrum runs at ~22 frames/s at 1280×720 on 2 cores
      // (4.1's is far faster), and a spectrogram loses nothing visible to the upscale.
      return `[0:a]showspectrum=s=${even(w / 2)}x${even(h / 2)}:slide=scroll:mode=combined:color=intensity:scale=log:fps=${fps},scale=${w}:${h}:flags=bicubic,format=yuv420p[v]`;
  }
}

export const waveformEngine = videoEngine({
  id: 'video-waveform',
  async run(input, ctx) {
    const style = stringInput(input, 'style', 'waveform') as Style;
    if (!WAVEFORM_STYLES.includes(style)) throw new EngineInputError(`style must be one of ${WAVEFORM_STYLES.join(', ')}`);
    const fps = Math.round(numberInput(input, 'fps', 30));
    const { width: w, height: h } = capSize(numberInput(input, 'width', 1280), numberInput(input, 'height', 720));
    const audio = await loadAudio(ctx, String(input.audio_url), 'audio_url');
    const seconds = Math.min(MAX_SECONDS, audio.probe.durationSeconds!);
    if (audio.probe.durationSeconds! > MAX_SECONDS) ctx.log.warn('audio is longer than the limit; the video stops there', { limit: MAX_SECONDS });

    const graph = waveformGraph(style, w, h, fps, colorInput(input, 'color', '#4fd1c5'), colorInput(input, 'background_color', '#0b1020'), videoFfmpegInfo()?.system === true);
    const out = path.join(ctx.tmpDir, 'waveform.mp4');
    await ffmpeg(['-t', seconds.toFixed(3), '-i', audio.file, '-filter_complex', graph, '-map', '[v]', '-map', '0:a:0', ...H264, '-r', String(fps), ...AAC, '-t', seconds.toFixed(3), out], {
      signal: ctx.signal, deadline: ctx.deadline, expectedSeconds: seconds, onProgress: stage(ctx, 0.1, 0.95, 'rendering'),
    });
    return { result: [await fileOutput(out, 'video/mp4', 'waveform.mp4', ctx.signal)] };
  },
});
