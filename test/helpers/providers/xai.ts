import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { FakeServer, type FakeReply, type FakeRequest } from './server.js';

/**
 * A fake of xAI's image API (https://docs.x.ai, POST /v1/images/generations and /v1/images/edits), as
 * published: `Authorization: Bearer <key>`, where a wrong key is answered 400 with `{code, error}` like any
 * other invalid argument; JSON bodies `{model, prompt, n (1–10), aspect_ratio, resolution (1k|2k),
 * response_format (url|b64_json)}`, edits taking `image: {url}` or `images: [{url}]` (URLs or data: URIs,
 * up to 3); answers `{data: [{url | b64_json, mime_type, revised_prompt}], usage}`. Pictures are JPEGs,
 * URLs served from /files on the same server.
 */

const ASPECTS = ['1:1', '3:4', '4:3', '9:16', '16:9', '2:3', '3:2', '9:19.5', '19.5:9', '9:20', '20:9', '1:2', '2:1', 'auto'];
const MODELS = ['grok-imagine-image', 'grok-imagine-image-pro', 'grok-2-image'];

export interface XAIFake extends FakeServer {
  files: Map<string, Buffer>;
}

const invalid = (error: string): FakeReply => ({ status: 400, json: { code: 'Client specified an invalid argument', error } });

/** A small JPEG, its size following the aspect ratio (the long side 64 px at 1k, 128 px at 2k). */
export async function fakeJpeg(aspect = '1:1', resolution = '1k'): Promise<{ data: Buffer; width: number; height: number }> {
  const [w, h] = aspect === 'auto' ? [1, 1] : aspect.split(':').map(Number) as [number, number];
  const long = resolution === '2k' ? 128 : 64;
  const width = Math.round(w >= h ? long : (long * w) / h);
  const height = Math.round(h >= w ? long : (long * h) / w);
  const data = await sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } }).jpeg().toBuffer();
  return { data, width, height };
}

export async function startXAIFake(apiKey: string): Promise<XAIFake> {
  const files = new Map<string, Buffer>();
  const route = async (req: FakeRequest, fake: XAIFake): Promise<FakeReply> => {
    if (req.method === 'GET' && req.path.startsWith('/files/')) {
      const f = files.get(req.path.slice('/files/'.length));
      return f ? { headers: { 'content-type': 'image/jpeg' }, body: f } : { status: 404, body: 'not found' };
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) return invalid('Incorrect API key provided: ***. You can obtain an API key from https://console.x.ai.');
    const edit = req.path === '/v1/images/edits';
    if (req.method !== 'POST' || !(edit || req.path === '/v1/images/generations')) return { status: 404, json: { code: 'Not found', error: 'No such endpoint' } };
    let b: any;
    try {
      b = req.json();
    } catch {
      return { status: 422, json: { code: 'Unprocessable', error: 'Failed to deserialize the JSON body' } };
    }
    if (typeof b.prompt !== 'string' || !b.prompt) return { status: 422, json: { code: 'Unprocessable', error: 'missing field `prompt`' } };
    if (b.model !== undefined && !MODELS.includes(b.model)) return { status: 404, json: { code: 'Some requested entity was not found', error: `The model ${b.model} does not exist or your team does not have access to it.` } };
    const n = b.n ?? 1;
    if (!Number.isInteger(n) || n < 1 || n > 10) return invalid('n must be between 1 and 10');
    if (b.aspect_ratio !== undefined && b.aspect_ratio !== null && !ASPECTS.includes(b.aspect_ratio)) return invalid(`Invalid aspect_ratio ${b.aspect_ratio}`);
    if (b.resolution !== undefined && b.resolution !== null && !['1k', '2k'].includes(b.resolution)) return invalid(`Invalid resolution ${b.resolution}`);
    const format = b.response_format ?? 'url';
    if (!['url', 'b64_json'].includes(format)) return invalid(`Invalid response_format ${format}`);
    if (b.size !== undefined || b.style !== undefined || b.quality === 'hd') return invalid('size, style are not supported by this model');
    if (edit) {
      if (b.image && b.images) return invalid('image and images are mutually exclusive');
      const images = b.images ?? (b.image ? [b.image] : []);
      if (images.length === 0) return invalid('one of image or images is required');
      if (images.length > 3) return invalid('at most 3 images may be edited at once');
      for (const im of images) {
        if (typeof im?.url !== 'string' || !im.url) return invalid('each image needs a url');
        if (im.url.startsWith('data:')) {
          try {
            await sharp(Buffer.from(im.url.split(',')[1] ?? '', 'base64')).metadata();
          } catch {
            return invalid('Unable to decode the input image');
          }
        } else if (!/^https:\/\//.test(im.url)) return invalid('image url must be https or a data URI');
      }
    }
    const data = [];
    for (let i = 0; i < n; i++) {
      const img = await fakeJpeg(b.aspect_ratio ?? '1:1', b.resolution ?? '1k');
      if (format === 'b64_json') data.push({ b64_json: img.data.toString('base64'), url: null, mime_type: 'image/jpeg', revised_prompt: '' });
      else {
        const name = `${randomUUID()}.jpeg`;
        files.set(name, img.data);
        data.push({ b64_json: null, url: `${fake.url}/files/${name}`, mime_type: 'image/jpeg', revised_prompt: '' });
      }
    }
    return { json: { block_reason: null, data, usage: { cost_in_usd_ticks: 200_000_000 * n } } };
  };
  const fake = new FakeServer((req, f) => route(req, f as XAIFake)) as XAIFake;
  fake.files = files;
  return fake.start();
}
