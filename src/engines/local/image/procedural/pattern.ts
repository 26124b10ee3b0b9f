import { EngineInputError, type FileOutput } from '../../../types.js';
import { runInThread } from '../../threads.js';
import { asBuffer } from '../common/buffers.js';
import { localEngine, rethrowAborted } from '../common/engine.js';
import { int, num, optNum, str } from '../common/inputs.js';
import { imageOutput } from '../common/media.js';
import { randomSeed } from '../../random.js';
import { PATTERN_STYLES, type PatternOptions, type PatternStyle } from './pattern.work.js';
import { moduleUrl } from '../../moduleUrl.js';

const WORK = moduleUrl('./pattern.work.ts', import.meta.url);

/** pattern_art: seeded generative patterns (Truchet tiles, rings, waves, mosaics, flow fields, Voronoi). */
export const patternEngine = localEngine({
  id: 'pattern-art',
  requirements: ['npm: @napi-rs/canvas'],
  packages: ['@napi-rs/canvas', 'sharp'],
  async run(req, ctx) {
    const style = str(req.input, 'style', 'truchet') as PatternStyle;
    if (!PATTERN_STYLES.includes(style)) throw new EngineInputError(`style must be one of ${PATTERN_STYLES.join(', ')}`);
    const seed = optNum(req.input, 'seed') ?? randomSeed();
    const count = int(req.input, 'num_images', 1, 1, 4);
    const result: FileOutput[] = [];
    for (let i = 0; i < count; i++) {
      const opts: PatternOptions = {
        style, seed: seed + i,
        palette: str(req.input, 'palette', 'auto'),
        width: int(req.input, 'width', 1024, 64, 4096),
        height: int(req.input, 'height', 1024, 64, 4096),
        scale: Math.max(0.25, Math.min(4, num(req.input, 'scale', 1))),
      };
      const png = await runInThread<Uint8Array>('image-canvas', WORK, 'renderPattern', [opts], { signal: ctx.signal })
        .catch((e: unknown) => rethrowAborted(ctx, e));
      result.push(await imageOutput(asBuffer(png), `pattern-${style}-${seed + i}.png`));
      ctx.progress((i + 1) / count, `pattern ${i + 1} of ${count}`);
    }
    return { result, seed: { kind: 'number', value: seed } };
  },
});
