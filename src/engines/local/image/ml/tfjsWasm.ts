import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import type { io } from '@tensorflow/tfjs-core';
import { packageDir } from '../common/packages.js';

/**
 * TensorFlow.js on its WASM backend (about 20× the pure-JS CPU backend here). Loaded inside worker
 * threads only; each thread initialises the backend once, from the .wasm files in node_modules (never a
 * CDN).
 */
let ready: Promise<typeof tf> | undefined;

export function wasmDir(): string {
  return path.join(packageDir('@tensorflow/tfjs-backend-wasm'), 'dist') + path.sep;
}

export function tfjsWasm(): Promise<typeof tf> {
  ready ??= (async () => {
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
export function fileModelHandler(modelJsonPath: string): io.IOHandler {
  return {
    async load() {
      const dir = path.dirname(modelJsonPath);
      const json = JSON.parse(await fs.promises.readFile(modelJsonPath, 'utf8')) as {
        modelTopology: object; format?: string; generatedBy?: string; convertedBy?: string;
        weightsManifest: Array<{ paths: string[]; weights: io.WeightsManifestEntry[] }>;
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
