import sharp from 'sharp';
import { EngineInputError } from '../../../types.js';
import { localEngine } from '../common/engine.js';
import { parseHex } from '../common/color.js';
import { int, str } from '../common/inputs.js';
import { fetchImage, imageOutput } from '../common/media.js';

export const OUTPUT_FORMATS = ['png', 'jpeg', 'webp', 'avif', 'tiff', 'gif'] as const;
type Format = (typeof OUTPUT_FORMATS)[number];

/**
 * convert_image: re-encodes to another format. Formats without transparency (JPEG) are flattened onto
 * the background colour so transparent areas do not turn black.
 */
export const convertEngine = localEngine({
  id: 'image-convert',
  requirements: ['npm: sharp'],
  packages: ['sharp'],
  async run(req, ctx) {
    const img = await fetchImage(ctx, str(req.input, 'image_url'));
    const format = str(req.input, 'format', 'png') as Format;
    if (!OUTPUT_FORMATS.includes(format)) throw new EngineInputError(`format must be one of ${OUTPUT_FORMATS.join(', ')}`);
    const quality = int(req.input, 'quality', 85, 1, 100);
    const bg = parseHex(str(req.input, 'background', '#ffffff'), 'background');
    ctx.progress(0.3, `encoding ${format}`);
    let pipe = sharp(img.bytes);
    if (format === 'jpeg') pipe = pipe.flatten({ background: bg });
    const data = await pipe.toFormat(format, format === 'png' || format === 'gif' ? {} : { quality }).toBuffer();
    const ext = format === 'jpeg' ? 'jpg' : format;
    return { result: [await imageOutput(data, `converted.${ext}`)] };
  },
});
