import sharp from 'sharp';
import type { Engine, FileOutput } from '../types.js';
import { EngineError, EngineInputError } from '../types.js';
import { ProviderClient, ProviderInputError } from './http.js';
import { dataUri, stringOption } from './inputs.js';
import { unconfiguredEngine } from './job.js';
import { downloadOutput, expectMedia } from './outputs.js';
import { allUrls, num, str } from './providerInputs.js';
import { runScope } from './signals.js';
import { resolveCommon, type RemoteCommonSettings } from './settings.js';

/**
 * xAI's image API (https://api.x.ai/v1, `Authorization: Bearer <key>`): POST /images/generations
 * `{ model, prompt, n, aspect_ratio, resolution, response_format }` and POST /images/edits with the
 * source pictures as `image: {url}` or `images: [{url}]` (data: URIs accepted, up to 3); both answer
 * `{ data: [{ b64_json | url, mime_type, revised_prompt }] }`.
 *
 * xAI picks the file format itself, so the hosted `output_format` (JPEG, PNG, WebP) is honoured by
 * re-encoding here; decoding the picture is also the check that it is one.
 *
 * Binding options: operation (`generate` | `edit`), model (e.g. `grok-imagine-image`).
 */
export interface XAISettings extends RemoteCommonSettings {
  apiKey?: string;
  /** Default https://api.x.ai/v1. */
  baseUrl?: string;
}

export const XAI_DEFAULT_BASE_URL = 'https://api.x.ai/v1';
const REQUIREMENTS = ['XAI_API_KEY (optional XAI_BASE_URL)'];
const MAX_EDIT_IMAGES = 3;
const FORMATS: Record<string, 'jpeg' | 'png' | 'webp'> = { jpeg: 'jpeg', jpg: 'jpeg', png: 'png', webp: 'webp' };

interface ImageData { b64_json?: string | null; url?: string | null; mime_type?: string; revised_prompt?: string }

export function createXAIEngine(s: XAISettings): Engine {
  if (!s.apiKey) return unconfiguredEngine('xai', REQUIREMENTS, 'set XAI_API_KEY to run models on xAI');
  const common = resolveCommon(s);
  const client = new ProviderClient({
    label: 'xAI',
    baseUrl: s.baseUrl || XAI_DEFAULT_BASE_URL,
    headers: { authorization: `Bearer ${s.apiKey}` },
    secrets: [s.apiKey],
    credentialHint: 'XAI_API_KEY',
    retry: s.retry,
  });

  return {
    id: 'xai',
    requirements: REQUIREMENTS,
    availability: async () => ({ available: true }),
    async execute(req, ctx) {
      const { input, options } = req;
      const edit = options.operation === 'edit';
      const scope = runScope(ctx);
      try {
        const format = FORMATS[(str(input.output_format) ?? 'jpeg').toLowerCase()];
        if (!format) throw new EngineInputError(`output_format "${String(input.output_format)}" is not one of JPEG, PNG, WebP`);
        const aspect = str(input.aspect_ratio);
        const body: Record<string, unknown> = {
          model: stringOption(options, 'model', 'xai'),
          prompt: String(input.prompt ?? ''),
          n: num(input.num_images) ?? 1,
          response_format: 'b64_json',
          ...(aspect && !(edit && aspect === 'auto') ? { aspect_ratio: aspect } : {}),
          ...(str(input.resolution) ? { resolution: str(input.resolution) } : {}),
        };
        if (edit) {
          const urls = [...allUrls(input.image_urls), ...allUrls(input.image_url)];
          if (urls.length === 0) throw new EngineInputError('image_urls needs at least one image');
          if (urls.length > MAX_EDIT_IMAGES) throw new EngineInputError(`xAI edits at most ${MAX_EDIT_IMAGES} images at once`);
          const images = [];
          for (const u of urls) images.push({ url: dataUri(await ctx.fetchMedia(u, { accept: 'image' })) });
          if (images.length === 1) body.image = images[0];
          else body.images = images;
        }
        ctx.progress(0.1, 'generating on xAI');
        const res = await client.request(edit ? 'images/edits' : 'images/generations', { json: body, signal: scope.signal, deadline: scope.deadline, retry: 'safe', timeoutMs: Math.max(client.policy.requestTimeoutMs, 180_000) }).catch((err: unknown) => {
          // xAI answers a wrong key with 400 like a bad argument: that is the operator's to fix, not the caller's input.
          if (err instanceof ProviderInputError && /api key/i.test(err.message)) throw new EngineError(`${err.message}; check XAI_API_KEY`);
          throw err;
        });
        const data = res.json<{ data?: ImageData[] }>().data;
        if (!Array.isArray(data) || data.length === 0) throw new EngineError('xAI answered without an image');
        const files: FileOutput[] = [];
        for (const [i, d] of data.entries()) {
          let bytes: Buffer;
          if (typeof d.b64_json === 'string' && d.b64_json) bytes = Buffer.from(d.b64_json.replace(/^data:[^,]*,/, ''), 'base64');
          else if (typeof d.url === 'string' && d.url) bytes = await downloadOutput(d.url, common, scope.signal, 'xAI');
          else throw new EngineError('xAI answered an image entry with neither b64_json nor url');
          const base = data.length > 1 ? `image-${i + 1}` : 'image';
          files.push(await asFormat(expectMedia(bytes, ['image'], base, 'xAI'), format, base));
          ctx.progress(0.5 + (0.5 * (i + 1)) / data.length);
        }
        return { result: files };
      } catch (err) {
        if (scope.stopped()) throw scope.stopError('xAI image');
        throw err;
      } finally {
        scope.dispose();
      }
    },
  };
}

/** Decodes the picture (a file that does not decode is not an image) and re-encodes it when another format was asked for. */
async function asFormat(file: FileOutput, format: 'jpeg' | 'png' | 'webp', base: string): Promise<FileOutput> {
  let meta: sharp.Metadata;
  try {
    meta = await sharp(file.data).metadata();
  } catch (err) {
    throw new EngineError(`xAI answered with an image that does not decode: ${(err as Error).message}`);
  }
  const dims = { width: meta.width, height: meta.height };
  if (file.contentType === `image/${format}`) return { ...file, ...dims };
  try {
    const data = await sharp(file.data).toFormat(format).toBuffer();
    return { ...expectMedia(data, ['image'], base, 'xAI'), ...dims };
  } catch (err) {
    throw new EngineError(`xAI answered with an image that does not decode: ${(err as Error).message}`);
  }
}
