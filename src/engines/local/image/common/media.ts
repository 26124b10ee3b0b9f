import sharp from 'sharp';
import { EngineInputError, type EngineContext, type FileOutput } from '../../../types.js';

/** Images larger than this are refused: local engines run on small machines. */
export const MAX_INPUT_PIXELS = 40_000_000;

export interface LoadedImage {
  /** The fetched bytes, or a PNG re-encode when EXIF said the picture is rotated. */
  bytes: Buffer;
  width: number;
  height: number;
  format: string;
  hasAlpha: boolean;
}

/** Reads the header only; an undecodable or oversized image is the caller's error, not ours. */
export async function decodeImage(bytes: Buffer, field = 'image_url'): Promise<LoadedImage> {
  let meta: sharp.Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  } catch (e) {
    throw new EngineInputError(`${field} is not a decodable image (${(e as Error).message})`);
  }
  if (!meta.width || !meta.height || !meta.format) throw new EngineInputError(`${field} is not a decodable image`);
  if (meta.width * meta.height > MAX_INPUT_PIXELS) {
    throw new EngineInputError(`${field} is ${meta.width}×${meta.height}: at most ${MAX_INPUT_PIXELS / 1e6} megapixels`);
  }
  // Phone photos store rotation in EXIF; apply it once here so every engine sees the upright picture.
  if (meta.orientation && meta.orientation > 1) {
    try {
      const { data, info } = await sharp(bytes).rotate().png().toBuffer({ resolveWithObject: true });
      return { bytes: data, width: info.width, height: info.height, format: 'png', hasAlpha: info.channels === 4 };
    } catch (e) {
      throw new EngineInputError(`${field} could not be decoded (${(e as Error).message})`);
    }
  }
  return { bytes, width: meta.width, height: meta.height, format: meta.format, hasAlpha: Boolean(meta.hasAlpha) };
}

/** Fetches an image input through the context (SSRF guards, size limits) and checks it decodes. */
export async function fetchImage(ctx: EngineContext, url: string, field = 'image_url'): Promise<LoadedImage> {
  const media = await ctx.fetchMedia(url, { accept: 'image' });
  return decodeImage(media.bytes, field);
}

const CONTENT_TYPES: Record<string, string> = {
  png: 'image/png', jpeg: 'image/jpeg', jpg: 'image/jpeg', webp: 'image/webp', avif: 'image/avif',
  heif: 'image/avif', tiff: 'image/tiff', gif: 'image/gif',
};

export function contentTypeOf(format: string): string {
  return CONTENT_TYPES[format] ?? 'application/octet-stream';
}

/** A file output with its real dimensions, read back from the encoded bytes. */
export async function imageOutput(data: Buffer, filename: string): Promise<FileOutput> {
  const meta = await sharp(data).metadata();
  return { kind: 'file', data, contentType: contentTypeOf(meta.format ?? 'png'), filename, width: meta.width, height: meta.height };
}
