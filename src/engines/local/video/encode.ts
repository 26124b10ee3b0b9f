import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { EngineError, type FileOutput } from '../../types.js';
import { MAX_SIDE } from './limits.js';
import { probeMedia } from './probe.js';

/**
 * H.264 in yuv420p (what every browser and phone plays), moov atom first so playback can start before the
 * download ends. `veryfast` keeps encodes short on 2 cores at a modest size cost.
 */
export const H264 = ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p', '-movflags', '+faststart'];
export const AAC = ['-c:a', 'aac', '-b:a', '128k'];

/** Rounds down to an even number of at least 2: yuv420p needs even width and height. */
export function even(n: number): number {
  return Math.max(2, Math.floor(n / 2) * 2);
}

/** A size no larger than MAX_SIDE on either side, aspect kept, both sides even. */
export function capSize(width: number, height: number, max = MAX_SIDE): { width: number; height: number } {
  const k = Math.min(1, max / width, max / height);
  return { width: even(width * k), height: even(height * k) };
}

/**
 * Filter that letterboxes any frame into exactly w×h (aspect kept, bars in `pad`), square pixels, so
 * clips of different shapes can be joined or composited.
 */
export function fitFilter(w: number, h: number, mode: 'contain' | 'cover' = 'contain', pad = 'black'): string {
  return mode === 'cover'
    ? `scale=${w}:${h}:force_original_aspect_ratio=increase,crop=${w}:${h},setsar=1`
    : `scale=${w}:${h}:force_original_aspect_ratio=decrease,pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2:color=${pad},setsar=1`;
}

/**
 * Checks that an engine's output file decodes and describes it for the run record. The bytes stay in the file:
 * the runner streams them to the artifact store (`path`); `data` reads them only when someone asks (tests).
 */
export async function fileOutput(file: string, contentType: string, filename: string, signal?: AbortSignal): Promise<FileOutput> {
  const size = await fs.stat(file).then((s) => s.size, () => 0);
  if (size === 0) throw new EngineError(`ffmpeg wrote no ${path.extname(filename).slice(1) || 'output'} file`);
  const isImage = contentType.startsWith('image/');
  // GIFs from the 4.1 build carry no duration in their header: decode them to measure it.
  const probe = await probeMedia(file, signal, { decodeForDuration: !isImage || contentType === 'image/gif' });
  if (!probe.video && !probe.audio) throw new EngineError('the output file does not decode');
  let data: Buffer | undefined;
  const out = { kind: 'file', path: file, contentType, filename } as FileOutput;
  Object.defineProperty(out, 'data', { enumerable: false, configurable: true, get: () => (data ??= readFileSync(file)) });
  if (probe.video) {
    out.width = probe.video.width;
    out.height = probe.video.height;
  }
  if (!isImage || contentType === 'image/gif') {
    if (probe.durationSeconds !== undefined) out.durationSeconds = Math.round(probe.durationSeconds * 1000) / 1000;
  }
  return out;
}

/**
 * Output options that lay an optional soundtrack (input number `index`) under a video of `seconds`:
 * padded with silence when short, cut when long, faded out over the last half second.
 */
export function soundtrackArgs(index: number, seconds: number): string[] {
  const fade = Math.min(0.5, seconds / 4);
  return ['-map', `${index}:a:0`, '-af', `apad,afade=t=out:st=${(seconds - fade).toFixed(3)}:d=${fade.toFixed(3)}`, ...AAC];
}
