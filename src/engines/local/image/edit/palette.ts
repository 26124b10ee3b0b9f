import { runInThread } from '../../threads.js';
import { asBuffer } from '../common/buffers.js';
import { localEngine, rethrowAborted } from '../common/engine.js';
import { int, str } from '../common/inputs.js';
import { fetchImage, imageOutput } from '../common/media.js';
import type { PaletteColor } from './palette.work.js';
import { moduleUrl } from '../../moduleUrl.js';

const WORK = moduleUrl('./palette.work.ts', import.meta.url);

/** color_palette: the dominant colours (k-means) with their shares, as JSON text and a swatch image. */
export const paletteEngine = localEngine({
  id: 'image-palette',
  requirements: ['npm: sharp', 'npm: @napi-rs/canvas'],
  packages: ['sharp', '@napi-rs/canvas', 'dejavu-fonts-ttf'],
  async run(req, ctx) {
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    const count = int(req.input, 'count', 6, 1, 16);
    ctx.progress(0.3, 'clustering colours');
    const { colors, swatch } = await runInThread<{ colors: PaletteColor[]; swatch: Uint8Array }>(
      'image-canvas', WORK, 'paletteWork', [img.bytes, count], { signal: ctx.signal },
    ).catch((e: unknown) => rethrowAborted(ctx, e));
    return {
      output: { kind: 'text', text: JSON.stringify({ colors }, null, 2) },
      result: [await imageOutput(asBuffer(swatch), 'palette.png')],
    };
  },
});
