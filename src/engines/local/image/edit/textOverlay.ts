import { EngineInputError } from '../../../types.js';
import { runInThread } from '../../threads.js';
import { asBuffer } from '../common/buffers.js';
import { parseHex } from '../common/color.js';
import { localEngine, rethrowAborted } from '../common/engine.js';
import { FONTS, type FontName } from '../common/fonts.js';
import { bool, num, str } from '../common/inputs.js';
import { fetchImage, imageOutput } from '../common/media.js';
import type { TextOverlayOptions } from './textOverlay.work.js';
import { moduleUrl } from '../../moduleUrl.js';

export const TEXT_POSITIONS = ['bottom', 'top', 'center', 'top-left', 'top-right', 'bottom-left', 'bottom-right'] as const;
const WORK = moduleUrl('./textOverlay.work.ts', import.meta.url);

/** text_overlay: writes wrapped text (caption, meme, watermark) on an image with the bundled DejaVu fonts. */
export const textOverlayEngine = localEngine({
  id: 'image-text-overlay',
  requirements: ['npm: sharp', 'npm: @napi-rs/canvas', 'npm: dejavu-fonts-ttf'],
  packages: ['sharp', '@napi-rs/canvas', 'dejavu-fonts-ttf'],
  async run(req, ctx) {
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    const text = str(req.input, 'text').trim();
    if (!text) throw new EngineInputError('text is empty');
    const fontName = str(req.input, 'font', 'sans-bold') as FontName;
    if (!(fontName in FONTS)) throw new EngineInputError(`font must be one of ${Object.keys(FONTS).join(', ')}`);
    const position = str(req.input, 'position', 'bottom');
    if (!(TEXT_POSITIONS as readonly string[]).includes(position)) throw new EngineInputError(`position must be one of ${TEXT_POSITIONS.join(', ')}`);
    const color = str(req.input, 'color', '#ffffff');
    const strokeColor = str(req.input, 'stroke_color', '#000000');
    const boxColor = str(req.input, 'box_color', '#000000');
    for (const [field, v] of [['color', color], ['stroke_color', strokeColor], ['box_color', boxColor]] as const) parseHex(v, field);
    const align = str(req.input, 'align', 'center');
    if (align !== 'center' && align !== 'left' && align !== 'right') throw new EngineInputError('align must be center, left or right');
    const opts: TextOverlayOptions = {
      text, position, font: fontName, color, strokeColor, boxColor,
      fontSize: num(req.input, 'font_size', 0),
      strokeWidth: num(req.input, 'stroke_width', 2),
      box: bool(req.input, 'box'),
      boxOpacity: num(req.input, 'box_opacity', 0.5),
      align,
    };
    ctx.progress(0.3, 'drawing text');
    const png = await runInThread<Uint8Array>('image-canvas', WORK, 'renderTextOverlay', [img.bytes, opts], { signal: ctx.signal })
      .catch((e: unknown) => rethrowAborted(ctx, e));
    return { result: [await imageOutput(asBuffer(png), 'text-overlay.png')] };
  },
});
