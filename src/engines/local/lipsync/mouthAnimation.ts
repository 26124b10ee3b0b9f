import fs from 'node:fs/promises';
import path from 'node:path';
import { ffmpegInfo, mediaDurationSeconds, runFfmpeg } from '../ffmpeg.js';
import { runInThread } from '../threads.js';
import { EngineInputError } from '../../types.js';
import { localEngine, rethrowAborted } from '../image/common/engine.js';
import { int, num, str } from '../image/common/inputs.js';
import { fetchImage } from '../image/common/media.js';
import { HUMAN_PACKAGES, VISION_WORK } from '../image/ml/objects.js';
import type { FaceLandmarks } from '../image/ml/vision.work.js';
import { FRAME_SECONDS, frameLevels, mouthOpenings, SAMPLE_RATE } from './loudness.js';
import { ffmpegStderr, parseProbe } from '../video/probe.js';
import { checkAudioShape } from '../audio/limits.js';
import type { RenderRequest } from './render.work.js';
import { moduleUrl } from '../moduleUrl.js';

const RENDER_WORK = moduleUrl('./render.work.ts', import.meta.url);
/** Distinct jaw positions: about one pixel of drop per level on a typical portrait. */
const LEVELS = 16;

/**
 * mouth_animation: an amplitude-driven mouth animation, not neural lip-sync. The face mesh (human) gives
 * the lips and chin; the audio's loudness every 40 ms sets how far the jaw drops; canvas draws the
 * frames and ffmpeg encodes H.264 video with AAC audio in an MP4.
 */
export const mouthAnimationEngine = localEngine({
  id: 'mouth-animation',
  requirements: ['npm: @vladmandic/human', 'npm: @napi-rs/canvas', 'ffmpeg (Debian ffmpeg, or the npm @ffmpeg-installer/ffmpeg build)'],
  packages: [...HUMAN_PACKAGES],
  check: () => (ffmpegInfo() ? { available: true } : { available: false, reason: 'ffmpeg not found: install the Debian package ffmpeg, or run npm ci' }),
  async run(req, ctx) {
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    const audio = await ctx.fetchMedia(str(req.input, 'audio_url'), { accept: 'audio' });
    const maxSeconds = num(req.input, 'max_duration', 30);
    const strength = num(req.input, 'strength', 1);
    const maxSide = int(req.input, 'resolution', 720, 128, 1080);
    const opts = { signal: ctx.signal, timeoutMs: Math.max(10_000, ctx.deadline - Date.now()) };

    const audioIn = path.join(ctx.tmpDir, 'audio.in');
    const pcmFile = path.join(ctx.tmpDir, 'audio.pcm');
    await fs.writeFile(audioIn, audio.bytes);
    ctx.progress(0.05, 'reading the audio');
    // Rate and channels from the header before decoding (audio/limits.ts); the length is cut at max_duration.
    const header = parseProbe(await ffmpegStderr(['-i', audioIn], ctx.signal));
    if (header.audio) checkAudioShape('audio_url', header.audio);
    await runFfmpeg(['-i', audioIn, '-t', String(maxSeconds), '-vn', '-ac', '1', '-ar', String(SAMPLE_RATE), '-f', 's16le', pcmFile], opts)
      .catch((e: Error) => { throw new EngineInputError(`audio_url could not be decoded: ${e.message}`); });
    const raw = await fs.readFile(pcmFile);
    const pcm = new Int16Array(raw.buffer, raw.byteOffset, Math.floor(raw.byteLength / 2));
    if (pcm.length < SAMPLE_RATE * FRAME_SECONDS) throw new EngineInputError('audio_url holds no sound (shorter than one 40 ms frame)');
    const openings = mouthOpenings(frameLevels(pcm), strength);

    ctx.progress(0.15, 'finding the face');
    const landmarks = await runInThread<FaceLandmarks | null>('tfjs', VISION_WORK, 'faceLandmarks', [img.bytes], { signal: ctx.signal })
      .catch((e: unknown) => rethrowAborted(ctx, e));
    if (!landmarks) throw new EngineInputError('NO_FACE: no face found in image_url that the detector is sure of (a doubtful face is refused rather than animated): use a clear, front-facing portrait');

    ctx.progress(0.3, `drawing ${openings.length} frames`);
    const framesDir = path.join(ctx.tmpDir, 'frames');
    await fs.mkdir(framesDir);
    const render: RenderRequest = { image: img.bytes, maxSide, landmarks, openings, levels: LEVELS, outDir: framesDir };
    const { width, height } = await runInThread<{ width: number; height: number }>('lipsync', RENDER_WORK, 'renderMouthFrames', [render], { signal: ctx.signal })
      .catch((e: unknown) => rethrowAborted(ctx, e));

    ctx.progress(0.7, 'encoding MP4');
    const outFile = path.join(ctx.tmpDir, 'mouth.mp4');
    await runFfmpeg([
      '-framerate', String(1 / FRAME_SECONDS), '-i', path.join(framesDir, 'frame_%05d.jpg'),
      '-t', String(maxSeconds), '-i', audioIn,
      '-map', '0:v:0', '-map', '1:a:0',
      '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p',
      '-c:a', 'aac', '-b:a', '128k', '-ar', '44100',
      '-shortest', '-movflags', '+faststart', outFile,
    ], opts);
    const data = await fs.readFile(outFile);
    const durationSeconds = await mediaDurationSeconds(outFile, ctx.signal);
    return {
      result: [{ kind: 'file', data, contentType: 'video/mp4', filename: 'mouth-animation.mp4', width, height, durationSeconds }],
    };
  },
});
