import { createCanvas, ImageData, type Canvas } from '@napi-rs/canvas';
import sharp from 'sharp';

/**
 * Decodes any format sharp reads into a canvas (canvas's own decoders cover fewer formats), optionally
 * shrunk so its longer side is at most `maxSide`.
 */
export async function imageToCanvas(bytes: Uint8Array, maxSide?: number): Promise<Canvas> {
  let pipe = sharp(bytes).ensureAlpha();
  if (maxSide) pipe = pipe.resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true });
  const { data, info } = await pipe.raw().toBuffer({ resolveWithObject: true });
  const canvas = createCanvas(info.width, info.height);
  const pixels = new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength);
  canvas.getContext('2d').putImageData(new ImageData(pixels, info.width, info.height), 0, 0);
  return canvas;
}

export async function canvasToPng(canvas: Canvas): Promise<Uint8Array> {
  return canvas.encode('png');
}
