import { randomUUID } from 'node:crypto';
import { FakeServer, type FakeReply, type FakeRequest } from './server.js';
import { makeMp4Head, makePng } from './media.js';

/**
 * A fake of fal.ai: the queue API under /queue (submit → request_id and status/response/cancel URLs;
 * status IN_QUEUE → IN_PROGRESS (with logs) → COMPLETED, answered 202 until complete; result; PUT
 * cancel answering 202 CANCELLATION_REQUESTED or 400 ALREADY_COMPLETED) and the synchronous API under
 * /run. Authorization `Key <key>`. Output files are served from /files on the same server.
 */

/** The app id status and results live under: owner/alias, or namespace/owner/alias for `workflows/` and `comfy/` ids (as fal's client parses them). */
export function falAppId(model: string): string {
  const parts = model.split('/');
  return parts.slice(0, ['workflows', 'comfy'].includes(parts[0]!) ? 3 : 2).join('/');
}

export interface FalFakeModel {
  /** Answer the submit with the request id only (no status/response/cancel URLs). */
  bareSubmit?: boolean;
  /** Polls answered IN_QUEUE, then IN_PROGRESS, before COMPLETED. */
  queued?: number;
  running?: number;
  /** The result, or a failure the result URL answers with. */
  run(input: any, fake: FalFake): { result: unknown } | { status: number; detail: unknown };
}

interface Job {
  model: string;
  app: string;
  input: any;
  polls: number;
  canceled: boolean;
  outcome?: { result: unknown } | { status: number; detail: unknown };
}

export interface FalFake extends FakeServer {
  /** Files uploaded through the storage API (fal's client: initiate, then PUT the bytes), by name. */
  cdn: Map<string, { type: string; data: Buffer }>;
  jobs: Map<string, Job>;
  files: Map<string, { type: string; data: Buffer }>;
  serveFile(name: string, type: string, data: Buffer): string;
}

export const falModels: Record<string, FalFakeModel> = {
  'fal-ai/flux-pro/v1.1': {
    queued: 1,
    running: 2,
    run(input, fake) {
      if (typeof input.prompt !== 'string' || !input.prompt) {
        return { status: 422, detail: [{ loc: ['body', 'prompt'], msg: 'field required', type: 'value_error.missing' }] };
      }
      const n = input.num_images ?? 1;
      const images = Array.from({ length: n }, (_, i) => ({
        url: fake.serveFile(`flux-${randomUUID()}.png`, 'image/png', makePng(16, 16, [i * 40, 80, 160])),
        width: 16,
        height: 16,
        content_type: 'image/png',
      }));
      return { result: { images, seed: input.seed ?? 42, has_nsfw_concepts: images.map(() => false), prompt: input.prompt, timings: { inference: 0.5 } } };
    },
  },
  'fal-ai/kling-video/v2/master/text-to-video': {
    queued: 0,
    running: 1,
    run(_input, fake) {
      return { result: { video: { url: fake.serveFile('video.mp4', 'video/mp4', makeMp4Head()), content_type: 'video/mp4', file_name: 'video.mp4', file_size: 88 } } };
    },
  },
  'fal-ai/wizper': {
    run(input) {
      if (typeof input.audio_url !== 'string' || !/^(data:audio\/wav;base64,|https?:\/\/)/.test(input.audio_url)) {
        return { status: 422, detail: [{ loc: ['body', 'audio_url'], msg: 'could not read audio', type: 'value_error' }] };
      }
      return { result: { text: 'hello from fal', chunks: [{ timestamp: [0, 1], text: 'hello from fal' }] } };
    },
  },
  'fal-ai/oom': {
    running: 1,
    run: () => ({ status: 500, detail: 'CUDA out of memory' }),
  },
  'fal-ai/slow': {
    queued: 1000,
    run: () => ({ result: {} }),
  },
  // Claims a PNG, serves four bytes of text (issue 28: such an answer was stored and charged).
  'fal-ai/not-an-image': {
    run: (_input, fake) => ({ result: { images: [{ url: fake.serveFile('fake.png', 'image/png', Buffer.from('string')), content_type: 'image/png' }] } }),
  },
  'workflows/acme/upscale-flow': {
    bareSubmit: true,
    running: 1,
    run: (_input, fake) => ({ result: { images: [{ url: fake.serveFile('flow.png', 'image/png', makePng(4, 4)) }] } }),
  },
  'comfy/acme/portrait/v2': {
    bareSubmit: true,
    run: (_input, fake) => ({ result: { images: [{ url: fake.serveFile('comfy.png', 'image/png', makePng(4, 4)) }] } }),
  },
  'fal-ai/empty': {
    run: () => ({ result: { images: [] } }),
  },
};

export async function startFalFake(apiKey: string): Promise<FalFake> {
  const jobs = new Map<string, Job>();
  const files = new Map<string, { type: string; data: Buffer }>();
  const pendingUploads = new Set<string>();

  const route = (req: FakeRequest, fake: FalFake): FakeReply => {
    if (req.method === 'GET' && req.path.startsWith('/files/')) {
      const f = files.get(req.path.slice('/files/'.length));
      return f ? { headers: { 'content-type': f.type }, body: f.data } : { status: 404, json: { detail: 'Not Found' } };
    }
    // The storage upload's second step: the bytes PUT to the upload URL (pre-signed: no key), then served from /cdn.
    const put = /^\/upload\/([^/]+)$/.exec(req.path);
    if (put && req.method === 'PUT') {
      const name = put[1]!;
      if (!pendingUploads.has(name)) return { status: 403, body: 'AccessDenied' };
      pendingUploads.delete(name);
      fake.cdn.set(name, { type: String(req.headers['content-type'] ?? 'application/octet-stream'), data: req.body });
      return { status: 200, body: '' };
    }
    if (req.method === 'GET' && req.path.startsWith('/cdn/')) {
      const f = fake.cdn.get(req.path.slice('/cdn/'.length));
      return f ? { headers: { 'content-type': f.type }, body: f.data } : { status: 404, body: 'Not Found' };
    }
    if (req.headers.authorization !== `Key ${apiKey}`) return { status: 401, json: { detail: 'No user found for Key ID and Secret' } };
    // The storage upload's first step: { content_type, file_name } → where to PUT the bytes and the URL they will have.
    if (req.method === 'POST' && req.path === '/storage/upload/initiate') {
      const body = req.json();
      if (typeof body.file_name !== 'string' || !body.file_name) return { status: 422, json: { detail: [{ loc: ['body', 'file_name'], msg: 'field required', type: 'value_error.missing' }] } };
      const name = `${randomUUID()}-${body.file_name}`;
      pendingUploads.add(name);
      return { json: { upload_url: `${fake.url}/upload/${name}`, file_url: `${fake.url}/cdn/${name}` } };
    }

    if (req.path.startsWith('/run/') && req.method === 'POST') {
      const model = req.path.slice('/run/'.length);
      const m = falModels[model];
      if (!m) return { status: 404, json: { detail: `Application '${model}' not found` } };
      const out = m.run(req.json(), fake);
      return 'result' in out ? { json: out.result } : { status: out.status, json: { detail: out.detail } };
    }
    if (!req.path.startsWith('/queue/')) return { status: 404, json: { detail: 'Not Found' } };
    const rest = req.path.slice('/queue/'.length);
    const reqMatch = /^(.+?)\/requests\/([^/]+)(\/status|\/cancel)?$/.exec(rest);
    if (reqMatch) {
      const [, app, id, action] = reqMatch;
      const job = jobs.get(id!);
      if (!job || job.app !== app) return { status: 404, json: { detail: `Request ${id} not found` } };
      const m = falModels[job.model]!;
      const queued = m.queued ?? 0;
      const running = m.running ?? 0;
      const complete = () => job.polls >= queued + running;
      const base = `${fake.url}/queue/${app}/requests/${id}`;
      if (action === '/status' && req.method === 'GET') {
        if (job.canceled) return { json: { status: 'COMPLETED', response_url: base, logs: [], error: 'Request was cancelled', error_type: 'request_cancelled' } };
        const p = job.polls++;
        if (p < queued) return { status: 202, json: { status: 'IN_QUEUE', queue_position: queued - p - 1, response_url: base } };
        if (p < queued + running) {
          const logs = req.query.get('logs') === '1' ? [{ message: `step ${p - queued + 1}/${running + 1}`, level: 'INFO', source: 'user', timestamp: new Date().toISOString() }] : null;
          return { status: 202, json: { status: 'IN_PROGRESS', logs, response_url: base } };
        }
        job.outcome ??= m.run(job.input, fake);
        return { json: { status: 'COMPLETED', logs: [], response_url: base, metrics: { inference_time: 0.4 } } };
      }
      if (action === '/cancel' && req.method === 'PUT') {
        if (complete() || job.canceled) return { status: 400, json: { status: 'ALREADY_COMPLETED' } };
        job.canceled = true;
        return { status: 202, json: { status: 'CANCELLATION_REQUESTED' } };
      }
      if (!action && req.method === 'GET') {
        if (!job.outcome) return { status: 400, json: { detail: 'Request is still in progress' } };
        const out = job.outcome;
        return 'result' in out ? { json: out.result } : { status: out.status, json: { detail: out.detail } };
      }
      return { status: 405, json: { detail: 'Method Not Allowed' } };
    }
    if (req.method === 'POST') {
      const model = rest;
      if (!falModels[model]) return { status: 404, json: { detail: `Application '${model}' not found` } };
      const id = randomUUID();
      const app = falAppId(model);
      jobs.set(id, { model, app, input: req.json(), polls: 0, canceled: false });
      const base = `${fake.url}/queue/${app}/requests/${id}`;
      if (falModels[model]!.bareSubmit) return { json: { status: 'IN_QUEUE', request_id: id } };
      return { json: { status: 'IN_QUEUE', request_id: id, response_url: base, status_url: `${base}/status`, cancel_url: `${base}/cancel`, queue_position: falModels[model]!.queued ?? 0 } };
    }
    return { status: 405, json: { detail: 'Method Not Allowed' } };
  };

  const fake = new FakeServer((req, f) => route(req, f as FalFake)) as FalFake;
  fake.jobs = jobs;
  fake.cdn = new Map();
  fake.files = files;
  fake.serveFile = (name, type, data) => {
    files.set(name, { type, data });
    return `${fake.url}/files/${name}`;
  };
  return fake.start();
}
