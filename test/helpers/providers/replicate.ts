import { randomBytes } from 'node:crypto';
import { FakeServer, type FakeReply, type FakeRequest } from './server.js';
import { makePng } from './media.js';

/**
 * A fake of Replicate's HTTP API under /v1: predictions created by version or by official model,
 * polled through `starting` → `processing` (tqdm-style logs) → `succeeded` | `failed`, canceled with
 * POST /predictions/{id}/cancel; `Prefer: wait` answered with a finished prediction when the model is
 * quick. Errors are problem-details bodies `{ title, detail, status }` (422s add `invalid_fields`).
 * Output files are served from /files.
 */

export interface ReplicateFakeModel {
  /** Polls answered `starting`, then `processing`, before the end. */
  starting?: number;
  processing?: number;
  validate?(input: any): Array<{ field: string; description: string }>;
  run(input: any, fake: ReplicateFake): { output: unknown } | { error: string };
}

interface Pred {
  id: string;
  /** Key in replicateModels. */
  key: string;
  model: string;
  version: string;
  input: any;
  polls: number;
  status: string;
  output: unknown;
  error: string | null;
  logs: string;
  created_at: string;
}

export interface ReplicateFake extends FakeServer {
  /** Files created with POST /v1/files, by id. */
  uploads: Map<string, { name: string; type: string; data: Buffer }>;
  predictions: Map<string, Pred>;
  /** Items per page of GET /predictions (Replicate's own pages are 100 long). */
  listPageSize: number;
  file(name: string, data: Buffer): string;
}

export const SDXL_VERSION = '39ed52f2a78e934b3ba6e2a89f5b1c712de7dfea535525255b1aa35c5565e08b';

export const replicateModels: Record<string, ReplicateFakeModel> = {
  'black-forest-labs/flux-1.1-pro': {
    starting: 1,
    processing: 2,
    validate: (input) => (typeof input.prompt === 'string' && input.prompt ? [] : [{ field: 'input.prompt', description: 'prompt is required' }]),
    run: (_input, fake) => ({ output: fake.file(`out-${randomBytes(4).toString('hex')}.png`, makePng(12, 12, [250, 200, 0])) }),
  },
  [`stability-ai/sdxl:${SDXL_VERSION}`]: {
    processing: 1,
    run: (input, fake) => ({ output: Array.from({ length: input.num_outputs ?? 1 }, (_, i) => fake.file(`sdxl-${i}-${randomBytes(4).toString('hex')}.png`, makePng(10, 10, [i * 50, 0, 0]))) }),
  },
  'meta/meta-llama-3-8b-instruct': {
    processing: 1,
    run: (input) => ({ output: ['Hello', ',', ' ', String(input.prompt ?? '')] }),
  },
  'acme/fast': {
    run: (_input, fake) => ({ output: fake.file('fast.png', makePng(4, 4)) }),
  },
  'acme/broken': {
    processing: 1,
    run: () => ({ error: 'CUDA error: out of memory' }),
  },
  'acme/slow': {
    processing: 100_000,
    run: () => ({ output: null }),
  },
};

const problem = (status: number, title: string, detail: string, extra: object = {}): FakeReply => ({
  status,
  headers: { 'content-type': 'application/problem+json' },
  json: { title, detail, status, ...extra },
});

export async function startReplicateFake(token: string): Promise<ReplicateFake> {
  const predictions = new Map<string, Pred>();
  const files = new Map<string, Buffer>();

  const view = (fake: ReplicateFake, p: Pred) => ({
    id: p.id,
    model: p.model,
    version: p.version,
    input: p.input,
    logs: p.logs,
    output: p.output,
    data_removed: false,
    error: p.error,
    status: p.status,
    created_at: p.created_at,
    urls: {
      get: `${fake.url}/v1/predictions/${p.id}`,
      cancel: `${fake.url}/v1/predictions/${p.id}/cancel`,
      stream: `${fake.url}/v1/stream/${p.id}`,
      web: `https://replicate.com/p/${p.id}`,
    },
  });

  /** Moves a prediction one step along its model's script. */
  const advance = (fake: ReplicateFake, p: Pred) => {
    if (!['starting', 'processing'].includes(p.status)) return;
    const m = replicateModels[p.key]!;
    const starting = m.starting ?? 0;
    const processing = m.processing ?? 0;
    const step = p.polls++;
    if (step < starting) p.status = 'starting';
    else if (step < starting + processing) {
      p.status = 'processing';
      const k = step - starting + 1;
      const pct = Math.round((k / (processing + 1)) * 100);
      p.logs += `${String(pct).padStart(3)}%|${'█'.repeat(Math.round(pct / 10))}${' '.repeat(10 - Math.round(pct / 10))}| ${k}/${processing + 1} [00:0${k}<00:01]\n`;
    } else {
      const out = m.run(p.input, fake);
      if ('error' in out) {
        p.status = 'failed';
        p.error = out.error;
      } else {
        p.status = 'succeeded';
        p.output = out.output;
      }
    }
  };

  const create = (fake: ReplicateFake, key: string, req: FakeRequest, version: string): FakeReply => {
    const m = replicateModels[key]!;
    const body = req.json();
    if (typeof body.input !== 'object' || body.input === null) return problem(422, 'Input validation failed', '- input: input is required');
    const invalid = m.validate?.(body.input) ?? [];
    if (invalid.length) {
      return problem(422, 'Input validation failed', invalid.map((f) => `- ${f.field}: ${f.description}`).join('\n'), {
        invalid_fields: invalid.map((f) => ({ type: 'required', field: f.field, description: f.description })),
      });
    }
    const p: Pred = { id: randomBytes(13).toString('hex').slice(0, 26), key, model: key.split(':')[0]!, version, input: body.input, polls: 0, status: 'starting', output: null, error: null, logs: '', created_at: new Date().toISOString() };
    predictions.set(p.id, p);
    // Prefer: wait — a quick model finishes within the create request.
    if (/^wait(=\d+)?$/.test(String(req.headers.prefer ?? '')) && (m.starting ?? 0) + (m.processing ?? 0) === 0) advance(fake, p);
    return { status: 201, json: view(fake, p) };
  };

  const route = (req: FakeRequest, fake: ReplicateFake): FakeReply | Promise<FakeReply> => {
    if (req.method === 'GET' && req.path.startsWith('/files/')) {
      const f = files.get(req.path.slice(7));
      return f ? { headers: { 'content-type': 'image/png' }, body: f } : problem(404, 'Not found', 'The requested resource could not be found.');
    }
    if (req.headers.authorization !== `Bearer ${token}`) return problem(401, 'Unauthenticated', 'You did not pass a valid authentication token');

    if (req.method === 'POST' && req.path === '/v1/predictions') {
      const version = String(req.json().version ?? '');
      const key = Object.keys(replicateModels).find((k) => k.endsWith(`:${version}`));
      if (!key) return problem(422, 'Invalid version or not permitted', "The specified version does not exist (or perhaps you don't have permission to use it?)");
      return create(fake, key, req, version);
    }
    const official = /^\/v1\/models\/([^/]+\/[^/]+)\/predictions$/.exec(req.path);
    if (req.method === 'POST' && official) {
      const key = official[1]!;
      if (!replicateModels[key]) return problem(404, 'Not found', 'The requested resource could not be found.');
      return create(fake, key, req, '');
    }
    // POST /files: multipart with the bytes in `content` (and optional filename, type, metadata); answers the
    // file object, whose urls.get is the URL a prediction's input may name.
    if (req.method === 'POST' && req.path === '/v1/files') {
      return (async (): Promise<FakeReply> => {
        const form = await new Request('http://fake/', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: new Uint8Array(req.body) }).formData();
        const content = form.get('content');
        if (!(content instanceof Blob)) return problem(422, 'Input validation failed', '- content: content is required');
        const id = randomBytes(12).toString('hex');
        const data = Buffer.from(await content.arrayBuffer());
        const name = String(form.get('filename') ?? (content instanceof File ? content.name : 'file'));
        const type = String(form.get('type') ?? (content.type || 'application/octet-stream'));
        fake.uploads.set(id, { name, type, data });
        const now = new Date();
        return {
          status: 201,
          json: {
            id, name, content_type: type, size: data.length, etag: id, checksums: { sha256: '' }, metadata: {},
            created_at: now.toISOString(), expires_at: new Date(now.getTime() + 86_400_000).toISOString(), urls: { get: `${fake.url}/v1/files/${id}` },
          },
        };
      })();
    }
    // GET /predictions: the account's predictions, newest first, paginated, narrowed by created_after /
    // created_before; list items carry no input (GET /predictions/{id} has it).
    if (req.method === 'GET' && req.path === '/v1/predictions') {
      const after = req.query.get('created_after');
      const before = req.query.get('created_before');
      const all = [...predictions.values()]
        .filter((p) => (!after || p.created_at >= after) && (!before || p.created_at < before))
        .sort((a, b) => b.created_at.localeCompare(a.created_at));
      // Pages of `listPageSize`; `next` is the URL of the following page (an opaque cursor in the query).
      const from = Number(Buffer.from(req.query.get('cursor') ?? '', 'base64url').toString() || 0);
      const results = all.slice(from, from + fake.listPageSize).map((p) => {
        const { input: _input, logs: _logs, output: _output, ...item } = view(fake, p);
        return { ...item, source: 'api' };
      });
      const page = (at: number) => {
        const q = new URLSearchParams(req.query);
        q.set('cursor', Buffer.from(String(at)).toString('base64url'));
        return `${fake.url}/v1/predictions?${q}`;
      };
      const next = from + fake.listPageSize < all.length ? page(from + fake.listPageSize) : null;
      return { json: { previous: from > 0 ? page(Math.max(0, from - fake.listPageSize)) : null, next, results } };
    }
    const one = /^\/v1\/predictions\/([^/]+)(\/cancel)?$/.exec(req.path);
    if (one) {
      const p = predictions.get(one[1]!);
      if (!p) return problem(404, 'Not found', 'The requested resource could not be found.');
      if (one[2] && req.method === 'POST') {
        if (['starting', 'processing'].includes(p.status)) p.status = 'canceled';
        return { json: view(fake, p) };
      }
      if (!one[2] && req.method === 'GET') {
        advance(fake, p);
        return { json: view(fake, p) };
      }
    }
    return problem(404, 'Not found', 'The requested resource could not be found.');
  };

  const fake = new FakeServer((req, f) => route(req, f as ReplicateFake)) as ReplicateFake;
  fake.predictions = predictions;
  fake.uploads = new Map();
  fake.listPageSize = 100;
  fake.file = (name, data) => {
    files.set(name, data);
    return `${fake.url}/files/${name}`;
  };
  return fake.start();
}
