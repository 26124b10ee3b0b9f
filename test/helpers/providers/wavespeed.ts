import { randomUUID } from 'node:crypto';
import { FakeServer, type FakeReply, type FakeRequest } from './server.js';
import { makeMp4Head } from './media.js';

/**
 * A fake of WaveSpeedAI's v3 API (https://wavespeed.ai/docs), as published: `Authorization: Bearer <key>`;
 * every answer an envelope `{code, message, data}`; POST /api/v3/{model} → `data: {id, model, status:
 * "created", outputs: [], urls: {get}}`; GET /api/v3/predictions/{id}/result → `created` → `processing` →
 * `completed` (with `outputs`, file URLs) or `failed` (with `error`); POST /api/v3/media/upload/binary
 * (multipart `file`) → `data: {type, download_url, filename, size}`. Each model checks the parameters its
 * WaveSpeed page lists; media parameters must be http(s) URLs. Files are served from /files.
 */

interface Model { required: string[]; allowed: string[]; media: string[] }
export const WAVESPEED_MODELS: Record<string, Model> = {
  'wavespeed-ai/video-background-remover': { required: ['video'], allowed: ['background_image'], media: ['video', 'background_image'] },
  'wavespeed-ai/video-face-swap': { required: ['video', 'face_image'], allowed: ['target_gender', 'target_index', 'max_duration'], media: ['video', 'face_image'] },
  'wavespeed-ai/video-watermark-remover': { required: ['video'], allowed: [], media: ['video'] },
  'wavespeed-ai/video-upscaler-pro': { required: ['video'], allowed: ['target_resolution'], media: ['video'] },
  'wavespeed-ai/infinitetalk': { required: ['image', 'audio'], allowed: ['prompt', 'resolution', 'seed', 'mask_image'], media: ['image', 'audio', 'mask_image'] },
  'wavespeed-ai/infinitetalk/video-to-video': { required: ['video', 'audio'], allowed: ['prompt', 'resolution', 'seed', 'mask_image'], media: ['video', 'audio', 'mask_image'] },
};

interface Job { id: string; model: string; input: Record<string, unknown>; polls: number; fail?: string }

export interface WaveSpeedFake extends FakeServer {
  jobs: Map<string, Job>;
  uploads: Map<string, { type: string; data: Buffer }>;
  /** Polls a prediction answers created/processing before its outcome. */
  pollsNeeded: number;
  failNext?: string;
}

const envelope = (data: unknown, code = 200, message = 'success'): FakeReply => ({ status: code, json: { code, message, data } });
const refuse = (code: number, message: string): FakeReply => ({ status: code, json: { code, message, data: null } });

export async function startWaveSpeedFake(apiKey: string): Promise<WaveSpeedFake> {
  const jobs = new Map<string, Job>();
  const uploads = new Map<string, { type: string; data: Buffer }>();
  const predictionOf = (j: Job, fake: WaveSpeedFake, status: string, outputs: string[] = [], error = '') => ({
    id: j.id, model: j.model, outputs, urls: { get: `${fake.url}/api/v3/predictions/${j.id}/result` }, has_nsfw_contents: [], status, created_at: new Date().toISOString(), error, timings: { inference: status === 'completed' ? 1200 : 0 },
  });

  const route = async (req: FakeRequest, fake: WaveSpeedFake): Promise<FakeReply> => {
    if (req.method === 'GET' && req.path.startsWith('/files/')) {
      const f = uploads.get(req.path.slice('/files/'.length));
      return f ? { headers: { 'content-type': f.type }, body: f.data } : { status: 404, body: 'not found' };
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) return refuse(401, 'Unauthorized: invalid API key');
    if (req.method === 'POST' && req.path === '/api/v3/media/upload/binary') {
      const type = String(req.headers['content-type'] ?? '');
      if (!type.startsWith('multipart/form-data')) return refuse(400, 'file is required');
      const file = (await new Request('http://fake/', { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(req.body) }).formData()).get('file');
      if (!(file instanceof File) || file.size === 0) return refuse(400, 'file is required');
      const name = `${randomUUID()}-${file.name}`;
      uploads.set(name, { type: file.type, data: Buffer.from(await file.arrayBuffer()) });
      return envelope({ type: file.type.split('/')[0], download_url: `${fake.url}/files/${name}`, filename: file.name, size: file.size });
    }
    const poll = /^\/api\/v3\/predictions\/([^/]+)\/result$/.exec(req.path);
    if (req.method === 'GET' && poll) {
      const j = jobs.get(poll[1]!);
      if (!j) return refuse(404, 'prediction not found');
      const p = j.polls++;
      if (p < fake.pollsNeeded) return envelope(predictionOf(j, fake, p === 0 ? 'created' : 'processing'));
      if (j.fail) return envelope(predictionOf(j, fake, 'failed', [], j.fail));
      const name = `${j.id}.mp4`;
      uploads.set(name, { type: 'video/mp4', data: makeMp4Head() });
      return envelope(predictionOf(j, fake, 'completed', [`${fake.url}/files/${name}`]));
    }
    const model = req.method === 'POST' ? req.path.replace(/^\/api\/v3\//, '') : '';
    const m = WAVESPEED_MODELS[model];
    if (!m) return refuse(404, `model ${model || req.path} not found`);
    let b: Record<string, unknown>;
    try {
      b = req.json();
    } catch {
      return refuse(400, 'invalid JSON body');
    }
    for (const k of m.required) if (b[k] === undefined || b[k] === '') return refuse(400, `${k} is required`);
    for (const k of Object.keys(b)) if (!m.required.includes(k) && !m.allowed.includes(k) && !['enable_sync_mode', 'enable_base64_output'].includes(k)) return refuse(400, `unknown parameter ${k}`);
    for (const k of m.media) if (b[k] !== undefined && !/^https?:\/\//.test(String(b[k]))) return refuse(400, `${k} must be a URL`);
    const id = randomUUID().replace(/-/g, '');
    const j: Job = { id, model, input: b, polls: 0, fail: fake.failNext };
    fake.failNext = undefined;
    jobs.set(id, j);
    return envelope(predictionOf(j, fake, 'created'));
  };
  const fake = new FakeServer((req, f) => route(req, f as WaveSpeedFake)) as WaveSpeedFake;
  fake.jobs = jobs;
  fake.uploads = uploads;
  fake.pollsNeeded = 2;
  return fake.start();
}
