import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { packageDir } from '../common/packages.js';
import { tfjsWasm, wasmDir } from './tfjsWasm.js';

/**
 * @vladmandic/human (face detection + mesh, age/gender, emotion, CenterNet COCO objects) on the tfjs
 * WASM backend, loaded once per worker thread.
 *
 * Two shims make it run offline: its package `exports` map hides the node-wasm build, so it is required
 * by absolute path; and it fetches its graph models with `fetch(file://…)`, which Node's fetch refuses,
 * so this thread's fetch answers file: URLs from disk (other URLs still go to the real fetch, which has
 * no network here anyway).
 */
export type Point = [number, number, number?];
export type Box = [number, number, number, number];

export interface HumanFace {
  score: number;
  /** The face detector's own confidence (BlazeFace); `score` mixes in the mesh's, which is high on almost any face-like patch. */
  boxScore?: number;
  box: Box;
  mesh: Point[];
  annotations: Record<string, Point[]>;
  age?: number;
  gender?: string;
  genderScore?: number;
  emotion?: Array<{ score: number; emotion: string }>;
  rotation?: { angle: { roll: number; yaw: number; pitch: number } } | null;
}
export interface HumanObject { score: number; label: string; box: Box }
export interface HumanResult { face: HumanFace[]; object: HumanObject[]; error?: string | null }

interface HumanInstance {
  load(): Promise<void>;
  detect(input: unknown, config?: Record<string, unknown>): Promise<HumanResult>;
  tf: typeof import('@tensorflow/tfjs-core');
}

function installFileFetch(): void {
  const g = globalThis as { fetch: typeof fetch; __atelierFileFetch?: boolean };
  if (g.__atelierFileFetch) return;
  const real = g.fetch;
  g.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.startsWith('file://')) {
      const bytes = await fs.promises.readFile(new URL(url));
      return new Response(bytes, { status: 200, headers: { 'content-type': url.endsWith('.json') ? 'application/json' : 'application/octet-stream' } });
    }
    return real(input, init);
  }) as typeof fetch;
  g.__atelierFileFetch = true;
}

/** Settings shared by every call; per-task settings switch modules on and off. */
export function baseConfig(): Record<string, unknown> {
  return {
    backend: 'wasm',
    wasmPath: wasmDir(),
    modelBasePath: `file://${path.join(packageDir('@vladmandic/human'), 'models')}/`,
    debug: false,
    async: true,
    warmup: 'none',
    // Results for one still image must not be reused from a previous call on a similar-looking input.
    cacheSensitivity: 0,
    skipAllowed: false,
    filter: { enabled: false },
    face: {
      enabled: true,
      detector: { enabled: true, rotation: false, maxDetected: 10, minConfidence: 0.3, skipFrames: 0 },
      mesh: { enabled: true },
      attention: { enabled: false },
      iris: { enabled: false },
      description: { enabled: true, skipFrames: 0 },
      emotion: { enabled: true, skipFrames: 0 },
      antispoof: { enabled: false },
      liveness: { enabled: false },
    },
    body: { enabled: false },
    hand: { enabled: false },
    object: { enabled: true, minConfidence: 0.2, maxDetected: 20, skipFrames: 0 },
    gesture: { enabled: false },
    segmentation: { enabled: false },
  };
}

let instance: Promise<HumanInstance> | undefined;

export function human(): Promise<HumanInstance> {
  instance ??= (async () => {
    installFileFetch();
    await tfjsWasm();
    const entry = path.join(path.dirname(createRequire(import.meta.url).resolve('@vladmandic/human')), 'human.node-wasm.js');
    const mod = createRequire(import.meta.url)(entry) as { Human: new (cfg: Record<string, unknown>) => HumanInstance };
    const h = new mod.Human(baseConfig());
    await h.load();
    return h;
  })();
  instance.catch(() => { instance = undefined; });
  return instance;
}

/** Runs detection on raw RGB pixels (decoded by sharp), disposing the input tensor afterwards. */
export async function detectRgb(rgb: Uint8Array, width: number, height: number, config: Record<string, unknown>): Promise<HumanResult> {
  const h = await human();
  const tensor = h.tf.tensor3d(rgb, [height, width, 3], 'int32');
  try {
    const res = await h.detect(tensor, config);
    if (res.error) throw new Error(`face/object detection failed: ${res.error}`);
    return res;
  } finally {
    tensor.dispose();
  }
}
