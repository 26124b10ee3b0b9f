import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import type { Catalog } from '../catalog/catalog.js';
import type { FieldSpec, ModeDef, ModelDef } from '../catalog/types.js';
import type { EngineRegistry } from '../engines/registry.js';
import { EngineInputError, type EngineContext, type EngineOutputs, type ExecuteRequest, type Media } from '../engines/types.js';
import { ffmpegInfo, runBinary } from '../engines/local/ffmpeg.js';
import { encodeWav16 } from '../engines/local/audio/wav.js';

/**
 * Availability proven, not guessed (issue 19): every available local model runs a tiny input through its
 * engine, so a model whose package resolves but whose engine cannot load (missing weights, a native
 * binding that fails, a broken exports map) is reported. Used by `atelier doctor --models` and, in the
 * background, by the service at start. Remote models are not run (that would spend money); their
 * availability comes from the provider's own model list.
 */

export interface SmokeResult {
  nodeType: string;
  subModelId: string | null;
  ok: boolean;
  ms: number;
  /** Why it failed, or why it was not run. */
  error?: string;
  skipped?: boolean;
}

export interface SmokeMedia {
  image: string;
  portrait: string | undefined;
  audio: string;
  video: string | undefined;
}

const dataUrl = (bytes: Buffer, type: string) => `data:${type};base64,${bytes.toString('base64')}`;

/** Debian python-matplotlib-data's portrait, when installed: face models need a real face to do real work. */
const PORTRAITS = ['/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg', '/usr/share/matplotlib/sample_data/grace_hopper.jpg'];

/** The tiny inputs, made here: a 128×96 picture with shapes and words, a 1 s tone, a 1 s test video. */
export async function smokeMedia(signal?: AbortSignal): Promise<SmokeMedia> {
  const c = createCanvas(128, 96);
  const g = c.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, 128, 96);
  g.fillStyle = '#d62828';
  g.fillRect(8, 8, 40, 30);
  g.fillStyle = '#1d4ed8';
  g.beginPath();
  g.arc(96, 26, 18, 0, Math.PI * 2);
  g.fill();
  g.fillStyle = '#000000';
  g.font = 'bold 26px sans-serif';
  g.fillText('Hi 42', 14, 82);
  const image = dataUrl(Buffer.from(await c.encode('png')), 'image/png');

  const rate = 16000;
  const tone = new Float32Array(rate);
  for (let i = 0; i < rate; i++) tone[i] = 0.4 * Math.sin((2 * Math.PI * 220 * i) / rate) * (0.5 + 0.5 * Math.sin((2 * Math.PI * 3 * i) / rate));
  const audio = dataUrl(encodeWav16([tone], rate), 'audio/wav');

  const portraitPath = PORTRAITS.find((p) => fs.existsSync(p));
  const portrait = portraitPath ? dataUrl(fs.readFileSync(portraitPath), 'image/jpeg') : undefined;

  let video: string | undefined;
  const ff = ffmpegInfo();
  if (ff) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-smoke-'));
    try {
      const file = path.join(dir, 'smoke.mp4');
      await runBinary(ff.ffmpeg, [
        '-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=128x96:rate=10:duration=1',
        '-f', 'lavfi', '-i', 'sine=frequency=330:sample_rate=16000:duration=1',
        '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', '-movflags', '+faststart', file,
      ], { signal, timeoutMs: 60_000 });
      video = dataUrl(fs.readFileSync(file), 'video/mp4');
    } catch {
      video = undefined;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return { image, portrait, audio, video };
}

/** Text inputs some models need in their own shape. */
const TEXT_VALUES: Record<string, unknown> = {
  template: 'Hello {{ text }}',
  json: '{"a":{"b":1}}',
  path: 'a.b',
  texts: ['one', 'two'],
  captions: 'Hello there',
  text: 'Hello from Atelier.',
  prompt: 'Say hi.',
};

/** Inputs a model needs beyond its required fields to do anything (resize_image needs a size). */
const OVERRIDES: Record<string, Record<string, unknown>> = {
  resize_image: { width: 64 },
};

const FACE_MODELS = new Set(['mouth_animation', 'analyze_faces']);

/** A small valid input for a mode: every required field and every media field filled, numbers at their smallest sensible value. */
export function smokeInput(model: ModelDef, mode: ModeDef, media: SmokeMedia): Record<string, unknown> | string {
  const input: Record<string, unknown> = {};
  const image = FACE_MODELS.has(model.nodeType) && media.portrait ? media.portrait : media.image;
  for (const field of mode.fields) {
    const v = valueFor(field, image, media);
    if (v === null) return `needs a ${field.dataType} input this machine cannot make (${field.name})`;
    if (v !== undefined) input[field.name] = v;
  }
  return { ...input, ...OVERRIDES[model.nodeType] };
}

function valueFor(field: FieldSpec, image: string, media: SmokeMedia): unknown {
  const many = (one: string | undefined) => (one === undefined ? null : Array.from({ length: Math.max(2, field.minItems ?? 1) }, () => one));
  if (field.type === 'image') return image;
  // A document input (document_ocr's file_url) takes an image as well as a PDF.
  if (field.dataType === 'file' && field.required) return image;
  if (field.type === 'images') return many(image);
  if (field.type === 'audio') return media.audio;
  if (field.type === 'video') return media.video ?? null;
  if (field.type === 'videos') return many(media.video);
  if (field.dataType === 'audio' && field.type === 'json') return many(media.audio);
  // Short outputs keep the smoke quick: durations and counts at their least.
  if (/duration|num_|max_tokens|length/.test(field.name) && (field.type === 'number' || field.type === 'integer')) {
    return field.min !== undefined ? Math.max(field.min, Math.min(1, field.max ?? 1)) : field.default;
  }
  if (!field.required) return undefined;
  if (field.name in TEXT_VALUES) return TEXT_VALUES[field.name];
  if (field.type === 'number' || field.type === 'integer') return field.default ?? Math.max(field.min ?? 32, 32);
  if (field.type === 'select') return field.default ?? field.options?.[0];
  if (field.type === 'boolean') return field.default ?? false;
  return 'Hello';
}

function smokeContext(tmpRoot: string, timeoutMs: number, signal?: AbortSignal): { ctx: EngineContext; done: () => void } {
  const tmpDir = fs.mkdtempSync(path.join(tmpRoot, 'atelier-smoke-'));
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(new Error('timeout')), timeoutMs);
  const onAbort = () => ctl.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const ctx: EngineContext = {
    signal: ctl.signal,
    deadline: Date.now() + timeoutMs,
    progress: () => {},
    log: { debug: () => {}, info: () => {}, warn: () => {} },
    tmpDir,
    // Smoke inputs are all data: URLs made above; nothing is fetched from anywhere.
    async fetchMedia(url: string): Promise<Media> {
      const m = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(url);
      if (!m) throw new EngineInputError('smoke inputs are data: URLs');
      return { bytes: m[2] ? Buffer.from(m[3]!, 'base64') : Buffer.from(decodeURIComponent(m[3]!)), contentType: m[1] || 'application/octet-stream' };
    },
  };
  return {
    ctx,
    done: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      fs.rmSync(tmpDir, { recursive: true, force: true });
    },
  };
}

export interface SmokeOptions {
  /** Only these nodeTypes (default: every available local model). */
  only?: string[];
  signal?: AbortSignal;
  tmpRoot?: string;
  onResult?: (r: SmokeResult) => void;
  /**
   * Runs one engine call. The service passes its engine pools, so the check runs in engine children and
   * never loads model code (onnxruntime, tfjs) into the service process; by default the engine runs here
   * (`atelier doctor --models`, a process of its own that ends after the check).
   */
  execute?: (engineId: string, req: ExecuteRequest, ctx: EngineContext) => Promise<EngineOutputs>;
}

/** Runs each available local model's smoke input, one at a time (it is a check, not a load test). */
export async function runModelSmoke(catalog: Catalog, engines: EngineRegistry, opts: SmokeOptions = {}): Promise<SmokeResult[]> {
  const media = await smokeMedia(opts.signal);
  const results: SmokeResult[] = [];
  const tmpRoot = opts.tmpRoot ?? os.tmpdir();
  for (const model of catalog.models) {
    if (model.provider !== 'local' || model.deprecated) continue;
    if (opts.only && !opts.only.includes(model.nodeType)) continue;
    // Each distinct binding once: every GGUF file, both ESRGAN weights, each sfxr preset (modes that share a binding share a check).
    const seen = new Set<string>();
    for (const mode of model.modes) {
      const key = `${mode.engine.engine}:${JSON.stringify(mode.engine.options ?? {})}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (opts.signal?.aborted) return results;
      const subModelId = model.modes.length > 1 ? mode.subModelId : null;
      const base = { nodeType: model.nodeType, subModelId };
      if (!catalog.availability(model, mode).available) continue;
      const engine = engines.get(mode.engine.engine);
      if (!engine) continue;
      const built = smokeInput(model, mode, media);
      if (typeof built === 'string') {
        const r = { ...base, ok: true, skipped: true, ms: 0, error: built };
        results.push(r);
        opts.onResult?.(r);
        continue;
      }
      let input: Record<string, unknown>;
      try {
        input = catalog.validateInput(mode, built, { path: 'input' });
      } catch (err) {
        const r = { ...base, ok: false, ms: 0, error: `smoke input refused: ${(err as Error).message}` };
        results.push(r);
        opts.onResult?.(r);
        continue;
      }
      const { ctx, done } = smokeContext(tmpRoot, Math.min((mode.timeoutSeconds ?? 120) * 1000, 300_000), opts.signal);
      const t0 = Date.now();
      let r: SmokeResult;
      try {
        const req = { nodeType: model.nodeType, subModelId: mode.subModelId, input, options: mode.engine.options ?? {} };
        const out = await (opts.execute ? opts.execute(engine.id, req, ctx) : engine.execute(req, ctx));
        const produced = Object.values(out).flat().length;
        r = produced > 0 ? { ...base, ok: true, ms: Date.now() - t0 } : { ...base, ok: false, ms: Date.now() - t0, error: 'ran but returned no output' };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        // Without a portrait on this machine, a face model refusing the drawn picture still proves it loaded and ran.
        const refusedNoFace = err instanceof EngineInputError && /NO_FACE/.test(message) && !media.portrait;
        r = { ...base, ok: refusedNoFace, ms: Date.now() - t0, ...(refusedNoFace ? { skipped: true } : {}), error: message.split('\n')[0]!.slice(0, 300) };
      } finally {
        done();
      }
      results.push(r);
      opts.onResult?.(r);
    }
  }
  return results;
}

export function formatSmoke(results: SmokeResult[]): string {
  const failed = results.filter((r) => !r.ok);
  const lines = results.map((r) => {
    const name = r.subModelId ? `${r.nodeType}/${r.subModelId}` : r.nodeType;
    const status = !r.ok ? 'FAIL' : r.skipped ? 'skip' : 'ok  ';
    return `${status} ${name.padEnd(44)} ${r.ms ? `${(r.ms / 1000).toFixed(2)} s` : ''}${r.error ? `  ${r.error}` : ''}`;
  });
  lines.push('', failed.length ? `${failed.length} of ${results.length} model checks failed` : `all ${results.length} model checks passed`);
  return lines.join('\n');
}
