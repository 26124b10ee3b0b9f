import { randomUUID } from 'node:crypto';
import { FakeServer, type FakeReply, type FakeRequest } from './server.js';
import { makeMp4Head } from './media.js';

/**
 * A fake of Hedra's public API (base /web-app/public), as its published starter kit uses it: key in
 * `X-API-Key` (401 `{detail}` otherwise); POST /assets `{name, type: image|audio}` → `{id, name, type}`;
 * POST /assets/{id}/upload (multipart `file`, which must match the asset type); POST /generations
 * `{type: "video", ai_model_id, start_keyframe_id, audio_id, generated_video_inputs: {text_prompt,
 * resolution, aspect_ratio}}` → `{id, asset_id}`; GET /generations/{id}/status → `queued` → `processing`
 * (with progress) → `complete` (with `url`, `download_url`) or `error` (with `error_message`).
 */

export const CHARACTER_3 = 'd1dd37a3-e39a-4854-a298-6510289f9cf2';
interface Asset { id: string; type: string; uploaded?: { type: string; size: number } }
interface Gen { id: string; body: any; polls: number; fail?: string }

export interface HedraFake extends FakeServer {
  assets: Map<string, Asset>;
  generations: Map<string, Gen>;
  pollsNeeded: number;
  failNext?: string;
}

const BASE = '/web-app/public';
const detail = (status: number, d: string): FakeReply => ({ status, json: { detail: d } });

export async function startHedraFake(apiKey: string): Promise<HedraFake> {
  const assets = new Map<string, Asset>();
  const generations = new Map<string, Gen>();
  const route = async (req: FakeRequest, fake: HedraFake): Promise<FakeReply> => {
    if (req.method === 'GET' && req.path.startsWith('/files/')) return { headers: { 'content-type': 'video/mp4' }, body: makeMp4Head() };
    if (req.headers['x-api-key'] !== apiKey) return detail(401, 'Invalid API key');
    if (!req.path.startsWith(`${BASE}/`)) return detail(404, 'Not Found');
    const p = req.path.slice(BASE.length);
    let m: RegExpExecArray | null;
    if (req.method === 'POST' && p === '/assets') {
      const b = req.json();
      if (typeof b.name !== 'string' || !['image', 'audio', 'video', 'voice'].includes(b.type)) return { status: 422, json: { detail: [{ loc: ['body', 'type'], msg: 'Input should be image, audio, video or voice', type: 'enum' }] } };
      const a: Asset = { id: randomUUID(), type: b.type };
      assets.set(a.id, a);
      return { json: { id: a.id, name: b.name, type: b.type } };
    }
    if (req.method === 'POST' && (m = /^\/assets\/([^/]+)\/upload$/.exec(p))) {
      const a = assets.get(m[1]!);
      if (!a) return detail(404, 'Asset not found');
      const type = String(req.headers['content-type'] ?? '');
      const file = type.startsWith('multipart/form-data') ? (await new Request('http://fake/', { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(req.body) }).formData()).get('file') : null;
      if (!(file instanceof File) || file.size === 0) return { status: 422, json: { detail: [{ loc: ['body', 'file'], msg: 'Field required', type: 'missing' }] } };
      if (!file.type.startsWith(`${a.type}/`)) return detail(400, `Uploaded file is not ${a.type}`);
      a.uploaded = { type: file.type, size: file.size };
      return { json: { id: a.id, type: a.type } };
    }
    if (req.method === 'POST' && p === '/generations') {
      const b = req.json();
      if (b.type !== 'video') return detail(400, 'type must be video');
      if (b.ai_model_id !== CHARACTER_3) return detail(404, `Model ${b.ai_model_id} not found`);
      for (const [k, t] of [['start_keyframe_id', 'image'], ['audio_id', 'audio']] as const) {
        const a = assets.get(b[k]);
        if (!a || a.type !== t || !a.uploaded) return detail(400, `${k} must name an uploaded ${t} asset`);
      }
      const gi = b.generated_video_inputs ?? {};
      if (typeof gi.text_prompt !== 'string') return { status: 422, json: { detail: [{ loc: ['body', 'generated_video_inputs', 'text_prompt'], msg: 'Field required', type: 'missing' }] } };
      if (gi.resolution && !['540p', '720p', '1080p'].includes(gi.resolution)) return detail(400, `Unsupported resolution ${gi.resolution}`);
      if (gi.aspect_ratio && !['16:9', '9:16', '1:1'].includes(gi.aspect_ratio)) return detail(400, `Unsupported aspect ratio ${gi.aspect_ratio}`);
      const g: Gen = { id: randomUUID(), body: b, polls: 0, fail: fake.failNext };
      fake.failNext = undefined;
      generations.set(g.id, g);
      return { json: { id: g.id, asset_id: randomUUID(), type: 'video' } };
    }
    if (req.method === 'GET' && (m = /^\/generations\/([^/]+)\/status$/.exec(p))) {
      const g = generations.get(m[1]!);
      if (!g) return detail(404, 'Generation not found');
      const n = g.polls++;
      if (n < fake.pollsNeeded) return { json: { id: g.id, status: n === 0 ? 'queued' : 'processing', progress: n === 0 ? 0 : 0.5, url: null, download_url: null, error_message: null } };
      if (g.fail) return { json: { id: g.id, status: 'error', progress: 1, url: null, download_url: null, error_message: g.fail } };
      const url = `${fake.url}/files/${g.id}.mp4`;
      return { json: { id: g.id, status: 'complete', progress: 1, url, download_url: `${url}?download=1`, asset_id: g.id, error_message: null } };
    }
    return detail(404, 'Not Found');
  };
  const fake = new FakeServer((req, f) => route(req, f as HedraFake)) as HedraFake;
  fake.assets = assets;
  fake.generations = generations;
  fake.pollsNeeded = 2;
  return fake.start();
}
