import fs from 'node:fs/promises';
import path from 'node:path';
import { EngineInputError, type EngineContext } from '../../types.js';
import { MAX_IMAGE_SIDE } from './limits.js';
import { checkAudioShape } from '../audio/limits.js';
import { probeMedia, type MediaProbe } from './probe.js';
import { ffmpeg } from './run.js';

export interface LoadedMedia {
  file: string;
  probe: MediaProbe;
}

/** Extension from the first bytes: ffmpeg's image2 demuxer (needed for `-loop 1`) goes by the file name. */
export function sniffExtension(b: Buffer): string {
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpg';
  if (b.length >= 6 && b.subarray(0, 4).toString('latin1') === 'GIF8') return 'gif';
  if (b.length >= 12 && b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  if (b.length >= 2 && b.subarray(0, 2).toString('latin1') === 'BM') return 'bmp';
  return 'bin';
}

async function fetchToFile(ctx: EngineContext, url: string, accept: 'image' | 'video' | 'audio', name: string): Promise<string> {
  const media = await ctx.fetchMedia(url, { accept });
  if (media.bytes.length === 0) throw new EngineInputError(`${name} is empty`);
  const file = path.join(ctx.tmpDir, `${name}.${sniffExtension(media.bytes)}`);
  await fs.writeFile(file, media.bytes);
  return file;
}

/** A video input, fetched and probed; `label` names it in error messages ("video_urls[2]"). */
export async function loadVideo(ctx: EngineContext, url: string, label: string, name = 'input'): Promise<LoadedMedia> {
  const file = await fetchToFile(ctx, url, 'video', name);
  const probe = await probeMedia(file, ctx.signal);
  if (!probe.video) throw new EngineInputError(`${label} could not be read as a video (no decodable video stream)`);
  if (!probe.durationSeconds || probe.durationSeconds <= 0) throw new EngineInputError(`${label} has no playable length`);
  return { file, probe };
}

export async function loadAudio(ctx: EngineContext, url: string, label: string, name = 'audio'): Promise<LoadedMedia> {
  const file = await fetchToFile(ctx, url, 'audio', name);
  // The header's length, rate and channels are checked before a length-finding decode (audio/limits.ts).
  const header = await probeMedia(file, ctx.signal, { decodeForDuration: false });
  if (header.audio) checkAudioShape(label, { ...header.audio, durationSeconds: header.durationSeconds });
  const probe = header.durationSeconds === undefined ? await probeMedia(file, ctx.signal) : header;
  if (!probe.audio) throw new EngineInputError(`${label} could not be read as audio (no decodable audio stream)`);
  if (!probe.durationSeconds || probe.durationSeconds <= 0) throw new EngineInputError(`${label} has no playable length`);
  return { file, probe };
}

/** Width and height from a PNG's IHDR chunk (bytes 16..23), without another ffmpeg start. */
export function pngSize(b: Buffer): { width: number; height: number } | undefined {
  if (b.length < 24 || b.readUInt32BE(0) !== 0x89504e47 || b.subarray(12, 16).toString('latin1') !== 'IHDR') return undefined;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

/**
 * An image input, re-encoded to a plain PNG no larger than MAX_IMAGE_SIDE: later filters then see one
 * pixel format and one demuxer whatever came in (JPEG, WebP, the first frame of a GIF). One ffmpeg start
 * per image (the system build takes ~0.1 s just to load its libraries). `fitTo`, a filter chain, instead
 * brings the image to its final frame size here, once, rather than on every frame of a looped still.
 */
export async function loadImage(ctx: EngineContext, url: string, label: string, name = 'image', fitTo?: string): Promise<LoadedMedia> {
  const raw = await fetchToFile(ctx, url, 'image', `${name}-src`);
  const file = path.join(ctx.tmpDir, `${name}.png`);
  const m = MAX_IMAGE_SIDE;
  const vf = fitTo ? `${fitTo},format=rgb24` : `scale='min(${m},iw)':'min(${m},ih)':force_original_aspect_ratio=decrease,format=rgba`;
  await ffmpeg(['-i', raw, '-frames:v', '1', '-vf', vf, file], {
    signal: ctx.signal, deadline: ctx.deadline,
  }).catch((e: Error) => {
    if (ctx.signal.aborted) throw e;
    throw new EngineInputError(`${label} could not be decoded as an image: ${e.message.replace(/^ffmpeg failed \(exit \d+\): /, '')}`);
  });
  const size = pngSize(await fs.readFile(file).catch(() => Buffer.alloc(0)));
  if (!size) throw new EngineInputError(`${label} could not be decoded as an image`);
  return { file, probe: { durationSeconds: undefined, video: { ...size, fps: undefined, codec: 'png' }, audio: undefined } };
}
