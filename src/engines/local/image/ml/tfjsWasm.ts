import fs from 'node:fs';
import path from 'node:path';
import type * as Tf from '@tensorflow/tfjs-core';
import { packageDir } from '../common/packages.js';

/**
 * TensorFlow.js on its WASM backend (about 20× the pure-JS CPU backend here). Loaded inside worker
 * threads only; each thread initialises the backend once, from the .wasm files in node_modules (never a
 * CDN). Imported on first use: every engine child loads this module's importers, and tfjs costs a child's
 * start about half a second of CPU that only the tfjs engines need.
 */
let ready: Promise<typeof Tf> | undefined;

export function wasmDir(): string {
  return path.join(packageDir('@tensorflow/tfjs-backend-wasm'), 'dist') + path.sep;
}

export function tfjsWasm(): Promise<typeof Tf> {
  ready ??= (async () => {
    const tf = await import('@tensorflow/tfjs-core');
    const { setWasmPaths } = await import('@tensorflow/tfjs-backend-wasm');
    setWasmPaths(wasmDir());
    if (!(await tf.setBackend('wasm'))) throw new Error('the tfjs WASM backend failed to initialise');
    await tf.ready();
    return tf;
  })();
  return ready;
}

/**
 * An IOHandler that reads a tfjs model (model.json + weight shards) from disk. tfjs-core's own file://
 * loader exists only in tfjs-node, which needs a native download we cannot do offline.
 */
export function fileModelHandler(modelJsonPath: string): Tf.io.IOHandler {
  return {
    async load() {
      const dir = path.dirname(modelJsonPath);
      const json = JSON.parse(await fs.promises.readFile(modelJsonPath, 'utf8')) as {
        modelTopology: object; format?: string; generatedBy?: string; convertedBy?: string;
        weightsManifest: Array<{ paths: string[]; weights: Tf.io.WeightsManifestEntry[] }>;
      };
      const shards = await Promise.all(json.weightsManifest.flatMap((g) => g.paths).map((p) => fs.promises.readFile(path.join(dir, p))));
      const all = Buffer.concat(shards);
      return {
        modelTopology: json.modelTopology,
        format: json.format,
        generatedBy: json.generatedBy,
        convertedBy: json.convertedBy,
        weightSpecs: json.weightsManifest.flatMap((g) => g.weights),
        weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
      };
    },
  };
}
