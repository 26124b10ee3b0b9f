import { EngineInputError, type FileOutput } from '../../../types.js';
import { runInThread } from '../../threads.js';
import { asBuffer } from '../common/buffers.js';
import { parseHex } from '../common/color.js';
import { localEngine, rethrowAborted } from '../common/engine.js';
import { int, optNum, optStr, str } from '../common/inputs.js';
import { imageOutput } from '../common/media.js';
import { randomSeed } from '../../random.js';
import { POSTER_STYLES, type PosterOptions, type PosterStyle } from './poster.work.js';
import { moduleUrl } from '../../moduleUrl.js';

const WORK = moduleUrl('./poster.work.ts', import.meta.url);

/** poster_render: procedural typographic posters of the given text (no neural model involved). */
export const posterEngine = localEngine({
  id: 'poster-render',
  requirements: ['npm: @napi-rs/canvas', 'npm: dejavu-fonts-ttf'],
  packages: ['@napi-rs/canvas', 'dejavu-fonts-ttf', 'sharp'],
  async run(req, ctx) {
    const text = str(req.input, 'text').trim();
    if (!text) throw new EngineInputError('text is empty');
    const style = str(req.input, 'style', 'bold') as PosterStyle;
    if (!POSTER_STYLES.includes(style)) throw new EngineInputError(`style must be one of ${POSTER_STYLES.join(', ')}`);
    const background = optStr(req.input, 'background');
    const accent = optStr(req.input, 'accent');
    if (background) parseHex(background, 'background');
    if (accent) parseHex(accent, 'accent');
    const seed = optNum(req.input, 'seed') ?? randomSeed();
    const count = int(req.input, 'num_images', 1, 1, 4);
    const result: FileOutput[] = [];
    for (let i = 0; i < count; i++) {
      const opts: PosterOptions = {
        text, style, background, accent, seed: seed + i,
        subtitle: optStr(req.input, 'subtitle'),
        palette: str(req.input, 'palette', 'auto'),
        width: int(req.input, 'width', 1080, 64, 4096),
        height: int(req.input, 'height', 1350, 64, 4096),
      };
      const png = await runInThread<Uint8Array>('image-canvas', WORK, 'renderPoster', [opts], { signal: ctx.signal })
        .catch((e: unknown) => rethrowAborted(ctx, e));
      result.push(await imageOutput(asBuffer(png), `poster-${seed + i}.png`));
      ctx.progress((i + 1) / count, `poster ${i + 1} of ${count}`);
    }
    return { result, seed: { kind: 'number', value: seed } };
  },
});
