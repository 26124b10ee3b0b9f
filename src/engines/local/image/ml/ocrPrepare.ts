import sharp from 'sharp';
import { ocrUpscale } from './ocrWords.js';

/** Enlarges small pictures and flattens transparency onto white; returns the factor applied. */
export async function prepareForOcr(bytes: Uint8Array): Promise<{ png: Buffer; factor: number }> {
  const meta = await sharp(bytes).metadata();
  const factor = ocrUpscale(meta.width ?? 0, meta.height ?? 0);
  let pipe = sharp(bytes).flatten({ background: '#ffffff' });
  if (factor > 1) pipe = pipe.resize((meta.width ?? 1) * factor, (meta.height ?? 1) * factor, { kernel: 'lanczos3' });
  return { png: await pipe.png().toBuffer(), factor };
}
