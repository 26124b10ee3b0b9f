import QRCode from 'qrcode';
import sharp from 'sharp';
import { EngineInputError } from '../../../types.js';
import { parseHex, luminance } from '../common/color.js';
import { localEngine } from '../common/engine.js';
import { int, str } from '../common/inputs.js';
import { imageOutput } from '../common/media.js';

export const QR_LEVELS = ['M', 'L', 'Q', 'H'] as const;

/**
 * qr_code: encodes text as a QR code (the `qrcode` package computes the module matrix) and paints it
 * with whole-pixel modules so scanners read it crisply; the picture is padded to exactly `size`.
 */
export const qrEngine = localEngine({
  id: 'qr-code',
  requirements: ['npm: qrcode', 'npm: sharp'],
  packages: ['qrcode', 'sharp'],
  async run(req, ctx) {
    const text = str(req.input, 'text');
    if (!text) throw new EngineInputError('text is empty');
    const level = str(req.input, 'error_correction', 'M') as (typeof QR_LEVELS)[number];
    if (!QR_LEVELS.includes(level)) throw new EngineInputError(`error_correction must be one of ${QR_LEVELS.join(', ')}`);
    const size = int(req.input, 'size', 512, 64, 4096);
    const margin = int(req.input, 'margin', 4, 0, 20);
    const dark = parseHex(str(req.input, 'dark_color', '#000000'), 'dark_color');
    const light = parseHex(str(req.input, 'light_color', '#ffffff'), 'light_color');
    if (luminance(light) - luminance(dark) < 0.4) {
      throw new EngineInputError('dark_color must be much darker than light_color, or scanners cannot read the code');
    }
    let qr: QRCode.QRCode;
    try {
      qr = QRCode.create(text, { errorCorrectionLevel: level });
    } catch (e) {
      throw new EngineInputError(`cannot encode this text as a QR code: ${(e as Error).message}`);
    }
    const n = qr.modules.size;
    const total = n + 2 * margin;
    const px = Math.floor(size / total);
    if (px < 1) throw new EngineInputError(`size ${size} is too small for this ${n}×${n} code: use at least ${total}`);
    const offset = Math.floor((size - px * total) / 2) + margin * px;
    // Buffer.fill repeats a 3-byte pattern, painting whole runs of pixels at once.
    const raw = Buffer.alloc(size * size * 3);
    raw.fill(Buffer.from([light.r, light.g, light.b]));
    const ink = Buffer.from([dark.r, dark.g, dark.b]);
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) {
        if (!qr.modules.get(r, c)) continue;
        for (let y = 0; y < px; y++) {
          const start = ((offset + r * px + y) * size + offset + c * px) * 3;
          raw.fill(ink, start, start + px * 3);
        }
      }
    }
    ctx.progress(0.7, 'encoding PNG');
    const data = await sharp(raw, { raw: { width: size, height: size, channels: 3 } }).png().toBuffer();
    return { result: [await imageOutput(data, 'qr-code.png')] };
  },
});
