import path from 'node:path';
import * as tfl from '@tensorflow/tfjs-layers';
import sharp from 'sharp';
import { packageDir } from '../common/packages.js';
import { fileModelHandler, tfjsWasm } from './tfjsWasm.js';

export type EsrganSize = 'slim' | 'medium';
export interface UpscaleResult { png: Uint8Array; width: number; height: number; tiles: number }

/** Models stay loaded in the thread between tasks: loading is ~20 ms, but compiling kernels is not. */
const models = new Map<string, Promise<tfl.LayersModel>>();

function loadModel(size: EsrganSize, scale: number): Promise<tfl.LayersModel> {
  const key = `${size}x${scale}`;
  let m = models.get(key);
  if (!m) {
    m = (async () => {
      await tfjsWasm();
      const file = path.join(packageDir(`@upscalerjs/esrgan-${size}`), 'models', `x${scale}`, 'model.json');
      return tfl.loadLayersModel(fileModelHandler(file));
    })();
    models.set(key, m);
    m.catch(() => models.delete(key));
  }
  return m;
}

/** Tile edge in input pixels, and the overlap each tile reads beyond its edge so seams do not show. */
const TILE = 192;
const PAD = 10;

/**
 * Upscales with the UpscalerJS ESRGAN ("RDN" architecture) models: input and output in 0..255 RGB.
 * Large images are cut into padded tiles so memory stays bounded; each tile's padding is cropped away
 * after upscaling. `onTile` is not available across threads, so progress is per call.
 */
export async function upscale(bytes: Uint8Array, size: EsrganSize, scale: number): Promise<UpscaleResult> {
  const tf = await tfjsWasm();
  const model = await loadModel(size, scale);
  // Alpha is upscaled separately with Lanczos: the network only knows RGB.
  const meta = await sharp(bytes).metadata();
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const W = info.width;
  const H = info.height;
  const out = Buffer.alloc(W * scale * H * scale * 3);
  const rgb = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) rgb[i] = data[i]!;
  const image = tf.tensor3d(rgb, [H, W, 3]);
  let tiles = 0;
  try {
    for (let ty = 0; ty < H; ty += TILE) {
      for (let tx = 0; tx < W; tx += TILE) {
        const th = Math.min(TILE, H - ty);
        const tw = Math.min(TILE, W - tx);
        const y0 = Math.max(0, ty - PAD);
        const x0 = Math.max(0, tx - PAD);
        const y1 = Math.min(H, ty + th + PAD);
        const x1 = Math.min(W, tx + tw + PAD);
        const result = tf.tidy(() => {
          const patch = tf.expandDims(tf.slice(image, [y0, x0, 0], [y1 - y0, x1 - x0, 3]), 0);
          const up = model.predict(patch) as import('@tensorflow/tfjs-core').Tensor4D;
          const inner = tf.slice(up, [0, (ty - y0) * scale, (tx - x0) * scale, 0], [1, th * scale, tw * scale, 3]);
          return tf.cast(tf.round(tf.clipByValue(inner, 0, 255)), 'int32');
        });
        const px = await result.data();
        result.dispose();
        const rowLen = tw * scale * 3;
        for (let r = 0; r < th * scale; r++) {
          const dst = ((ty * scale + r) * W * scale + tx * scale) * 3;
          for (let k = 0; k < rowLen; k++) out[dst + k] = px[r * rowLen + k]!;
        }
        tiles++;
      }
    }
  } finally {
    image.dispose();
  }
  let pipe = sharp(out, { raw: { width: W * scale, height: H * scale, channels: 3 } });
  if (meta.hasAlpha) {
    const alpha = await sharp(bytes).ensureAlpha().extractChannel(3).resize(W * scale, H * scale, { kernel: 'lanczos3' }).raw().toBuffer();
    pipe = pipe.joinChannel(alpha, { raw: { width: W * scale, height: H * scale, channels: 1 } });
  }
  const png = await pipe.png().toBuffer();
  return { png, width: W * scale, height: H * scale, tiles };
}
