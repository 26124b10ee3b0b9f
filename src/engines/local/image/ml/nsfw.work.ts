import sharp from 'sharp';
import { tfjsWasm } from './tfjsWasm.js';

export const NSFW_MODELS = { mobilenet_v2: 'MobileNetV2', mobilenet_v2_mid: 'MobileNetV2Mid', inception_v3: 'InceptionV3' } as const;
export type NsfwModel = keyof typeof NSFW_MODELS;

interface Classifier { classify(img: unknown, topk?: number): Promise<Array<{ className: string; probability: number }>> }
const loaded = new Map<NsfwModel, Promise<Classifier>>();

/**
 * nsfwjs ships its weights inside the package as JS bundles and loads them by model name, with no
 * network. Its `import '@tensorflow/tfjs'` resolves to the same single tfjs-core as ours (package.json
 * overrides), so it runs on the WASM backend set up here.
 */
function classifier(model: NsfwModel): Promise<Classifier> {
  let c = loaded.get(model);
  if (!c) {
    c = (async () => {
      await tfjsWasm();
      const nsfwjs = (await import('nsfwjs')) as unknown as { load(name: string, opts?: Record<string, unknown>): Promise<Classifier> };
      // Each bundled model definition carries its own input size and type. nsfwjs announces the model
      // on console.info; keep that out of the service's output.
      const info = console.info;
      console.info = () => {};
      try {
        return await nsfwjs.load(NSFW_MODELS[model]);
      } finally {
        console.info = info;
      }
    })();
    loaded.set(model, c);
    c.catch(() => loaded.delete(model));
  }
  return c;
}

/** Class probabilities (Drawing, Hentai, Neutral, Porn, Sexy), summing to 1. */
export async function classify(bytes: Uint8Array, model: NsfwModel): Promise<Record<string, number>> {
  const tf = await tfjsWasm();
  const c = await classifier(model);
  // nsfwjs resizes to its input size itself; shrinking first keeps the tensor small.
  const { data, info } = await sharp(bytes).resize(512, 512, { fit: 'inside', withoutEnlargement: true }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const t = tf.tensor3d(data, [info.height, info.width, 3], 'int32');
  try {
    const preds = await c.classify(t, 5);
    return Object.fromEntries(preds.map((p) => [p.className, Math.round(p.probability * 10000) / 10000]));
  } finally {
    t.dispose();
  }
}
