import { randomUUID } from 'node:crypto';
import type { Availability, Engine, FileOutput } from '../types.js';
import { EngineError } from '../types.js';
import { fillTemplate, placeholders } from './comfyuiTemplate.js';
import { ProviderClient, ProviderHttpError, ProviderUnansweredError, waitBeforeRetry } from './http.js';
import { comfyNodeClasses, fetchNameList, type BindingAvailability, type ListResult } from './servedModels.js';
import { isRecord, mediaFieldKind } from './inputs.js';
import { cancelQuietly, unconfiguredEngine, waitForJob, type PollResult, type RemoteJob } from './job.js';
import { expectedKinds, expectMedia, fileOutput } from './outputs.js';
import { runScope, sleep, type RunScope } from './signals.js';
import { resolveCommon, type RemoteCommonSettings } from './settings.js';

/**
 * A ComfyUI server: media inputs are uploaded with POST /upload/image, the binding's workflow template
 * is filled from the input and queued with POST /prompt; GET /history/{prompt_id} is polled (with
 * GET /queue for the position meanwhile) until it holds the outputs or an execution error; files come
 * from GET /view. On abort the job is canceled with POST /api/jobs/{id}/cancel; on older servers without it
 * a running prompt of ours is interrupted (POST /interrupt) and a pending one removed from the queue
 * (POST /queue { delete }).
 *
 * Binding options: workflow (API-format graph with {{placeholders}}), defaults (placeholder values),
 * outputNodes (node ids to collect; default every node's saved outputs), includeTemp (also collect
 * preview images).
 */
export interface ComfyUISettings extends RemoteCommonSettings {
  /** e.g. http://127.0.0.1:8188 */
  baseUrl?: string;
  /** Extra headers, e.g. for a ComfyUI behind an authenticating proxy. */
  headers?: Record<string, string>;
}

const REQUIREMENTS = ['COMFYUI_URL (a ComfyUI server, e.g. http://127.0.0.1:8188)'];

interface HistoryEntry {
  outputs?: Record<string, Record<string, unknown>>;
  status?: { status_str?: string; completed?: boolean; messages?: Array<[string, Record<string, unknown>]> };
}

interface SavedFile {
  filename: string;
  subfolder?: string;
  type?: string;
}

export function createComfyUIEngine(s: ComfyUISettings): Engine & Partial<BindingAvailability> {
  if (!s.baseUrl) return unconfiguredEngine('comfyui', REQUIREMENTS, 'set COMFYUI_URL to the address of a ComfyUI server');
  const common = resolveCommon(s);
  const client = new ProviderClient({
    label: 'ComfyUI',
    baseUrl: s.baseUrl,
    headers: s.headers ?? {},
    secrets: Object.values(s.headers ?? {}),
    retry: s.retry,
  });

  // The node classes this ComfyUI has installed (GET /object_info), asked once at start: a workflow
  // needing a custom node the server lacks is unavailable rather than failing at run time.
  let nodes: ListResult | undefined;
  let listing: Promise<Availability> | undefined;
  return {
    id: 'comfyui',
    requirements: REQUIREMENTS,
    availability() {
      listing ??= (async () => {
        nodes = await fetchNameList(client, 'object_info', comfyNodeClasses);
        return 'unavailable' in nodes ? { available: false, reason: nodes.unavailable } : { available: true };
      })();
      return listing;
    },
    bindingAvailability(options) {
      if (!nodes || !('names' in nodes) || !isRecord(options.workflow)) return { available: true };
      const installed = nodes.names;
      const needed = new Set(Object.values(options.workflow).map((n) => (isRecord(n) ? n.class_type : undefined)).filter((c): c is string => typeof c === 'string'));
      const missing = [...needed].filter((c) => !installed.has(c));
      return missing.length
        ? { available: false, reason: `this ComfyUI server lacks the node${missing.length > 1 ? 's' : ''} ${missing.join(', ')} the workflow needs (GET /object_info); install ${missing.length > 1 ? 'them' : 'it'} or pick another workflow` }
        : { available: true };
    },
    async execute(req, ctx) {
      const workflow = req.options.workflow;
      if (!isRecord(workflow)) throw new EngineError('the catalog binding of engine comfyui is missing options.workflow (an API-format prompt graph)');
      const scope = runScope(ctx);
      try {
        const values: Record<string, unknown> = { ...(isRecord(req.options.defaults) ? req.options.defaults : {}) };
        for (const [k, v] of Object.entries(req.input)) if (v !== undefined && v !== null) values[k] = v;
        // Media the workflow refers to is uploaded to ComfyUI's input folder; the placeholder becomes its name there.
        for (const name of placeholders(workflow)) {
          const accept = mediaFieldKind(name);
          const v = values[name];
          if (!accept || typeof v !== 'string') continue;
          values[name] = await upload(client, await ctx.fetchMedia(v, { accept }), scope);
        }
        const prompt = fillTemplate(workflow, values);
        const id = randomUUID();
        const job = historyJob(client, id, scope);
        const queued = await submit(client, { prompt, client_id: randomUUID(), prompt_id: id }, id, scope).catch(async (err: unknown) => {
          // Stopped while the submit was in flight: the prompt may be queued all the same, and its id is ours.
          if (scope.stopped()) await cancelQuietly(job, ctx, common);
          throw err;
        });
        ctx.log.info('comfyui prompt queued', { promptId: id, number: queued.number });
        const entry = await waitForJob(job, scope, ctx, common);
        ctx.progress(0.95, 'downloading results');
        return { result: await outputsOf(client, entry, req.options, scope, common.downloadMaxBytes) };
      } catch (err) {
        if (scope.stopped()) throw scope.stopError('ComfyUI workflow');
        throw err;
      } finally {
        scope.dispose();
      }
    },
  };
}

async function upload(client: ProviderClient, media: { bytes: Buffer; contentType: string }, scope: RunScope): Promise<string> {
  const form = new FormData();
  const ext = media.contentType.split('/')[1]?.replace(/^x-/, '') ?? 'bin';
  form.set('image', new Blob([new Uint8Array(media.bytes)], { type: media.contentType }), `atelier-${randomUUID()}.${ext}`);
  form.set('type', 'input');
  form.set('overwrite', 'true');
  const r = (await client.request('upload/image', { body: form, signal: scope.signal, deadline: scope.deadline })).json<{ name?: string; subfolder?: string }>();
  if (!r.name) throw new EngineError('ComfyUI accepted an upload but did not name the file');
  return r.subfolder ? `${r.subfolder}/${r.name}` : r.name;
}

/**
 * POST /prompt with a prompt_id of our choosing. ComfyUI queues whatever it is sent, a repeated id included,
 * so a submit whose answer was lost (time-out, dropped connection, 5xx) is first looked up by that id in
 * /history and /queue, and sent again only when the server does not know it.
 */
async function submit(client: ProviderClient, body: { prompt: unknown; client_id: string; prompt_id: string }, id: string, scope: RunScope): Promise<{ number?: number }> {
  const attempts = client.policy.retries + 1;
  for (let attempt = 1; ; attempt++) {
    try {
      const r = (await client.request('prompt', { json: body, signal: scope.signal, deadline: scope.deadline, retry: 'safe' })).json<{ prompt_id?: string; number?: number }>();
      if (r.prompt_id && r.prompt_id !== id) throw new EngineError(`ComfyUI queued the prompt as ${r.prompt_id}, not the prompt_id it was given`);
      return r;
    } catch (err) {
      const ambiguous = (err instanceof ProviderUnansweredError && err.maybeActed) || (err instanceof ProviderHttpError && err.status >= 500);
      if (scope.stopped() || !ambiguous) throw err;
      if (await knows(client, id, scope)) return {};
      if (attempt >= attempts) throw err;
      await sleep(waitBeforeRetry(client.policy, attempt - 1, undefined) ?? client.policy.baseDelayMs, scope.signal);
    }
  }
}

/** Whether the server has a prompt: in its history, running or pending. */
async function knows(client: ProviderClient, id: string, scope: RunScope): Promise<boolean> {
  const h = (await client.request(`history/${encodeURIComponent(id)}`, { signal: scope.signal, deadline: scope.deadline })).json<Record<string, unknown>>();
  if (h[id]) return true;
  const q = (await client.request('queue', { signal: scope.signal, deadline: scope.deadline })).json<{ queue_running?: QueueItem[]; queue_pending?: QueueItem[] }>();
  return [...(q.queue_running ?? []), ...(q.queue_pending ?? [])].some((item) => item[1] === id);
}

type QueueItem = [number, string, ...unknown[]];

function historyJob(client: ProviderClient, id: string, scope: RunScope): RemoteJob<HistoryEntry> {
  let missing = 0;
  const where = async (signal: AbortSignal, deadline?: number) => {
    const q = (await client.request('queue', { signal, deadline })).json<{ queue_running?: QueueItem[]; queue_pending?: QueueItem[] }>();
    if ((q.queue_running ?? []).some((item) => item[1] === id)) return { state: 'running' as const };
    const pending = (q.queue_pending ?? []).slice().sort((a, b) => a[0] - b[0]);
    const at = pending.findIndex((item) => item[1] === id);
    return at >= 0 ? { state: 'pending' as const, ahead: at + (q.queue_running?.length ?? 0) } : { state: 'absent' as const };
  };
  return {
    label: `ComfyUI prompt ${id}`,
    async poll(signal): Promise<PollResult<HistoryEntry>> {
      const h = (await client.request(`history/${encodeURIComponent(id)}`, { signal, deadline: scope.deadline })).json<Record<string, HistoryEntry>>();
      const entry = h[id];
      if (entry && (entry.status?.completed || entry.status?.status_str === 'error' || !entry.status)) {
        if (entry.status?.status_str === 'error') throw new EngineError(`ComfyUI workflow failed: ${executionError(entry)}`);
        return { done: true, value: entry };
      }
      const w = await where(signal, scope.deadline);
      if (w.state === 'running') {
        missing = 0;
        return { done: false, progress: 0.5, message: 'running on ComfyUI' };
      }
      if (w.state === 'pending') {
        missing = 0;
        return { done: false, progress: 0.05, message: `queued on ComfyUI (${w.ahead} ahead)` };
      }
      // Finished between the two requests, or lost (server restarted): look again a few times.
      if (++missing >= 3) throw new EngineError(`ComfyUI no longer knows prompt ${id} (was the server restarted?)`, true);
      return { done: false };
    },
    async cancel(signal) {
      // No run deadline here: it may be what has just passed; the cancel has its own short signal.
      // Current servers cancel one job, queued or running, atomically.
      const r = await client.request(`api/jobs/${encodeURIComponent(id)}/cancel`, { method: 'POST', signal, retry: false, accept: [404, 405] });
      if (r.status < 400) return;
      // Older servers: leave the queue, or interrupt — which there stops whatever is running, so only while
      // the running prompt is ours (a prompt of another user that starts in between is the remaining risk).
      const w = await where(signal);
      if (w.state === 'running') await client.request('interrupt', { json: { prompt_id: id }, signal, retry: false });
      else if (w.state === 'pending') await client.request('queue', { json: { delete: [id] }, signal, retry: false });
    },
  };
}

function executionError(entry: HistoryEntry): string {
  for (const [event, data] of entry.status?.messages ?? []) {
    if (event === 'execution_error') {
      const node = data.node_id !== undefined ? `node ${String(data.node_id)}${data.node_type ? ` (${String(data.node_type)})` : ''}: ` : '';
      return `${node}${String(data.exception_message ?? data.exception_type ?? 'error').trim()}`;
    }
    if (event === 'execution_interrupted') return 'interrupted on the server';
  }
  return 'unknown error';
}

async function outputsOf(client: ProviderClient, entry: HistoryEntry, options: Record<string, unknown>, scope: RunScope, maxBytes: number): Promise<FileOutput[]> {
  const only = Array.isArray(options.outputNodes) ? options.outputNodes.map(String) : undefined;
  const includeTemp = options.includeTemp === true;
  const nodes = Object.keys(entry.outputs ?? {})
    .filter((n) => !only || only.includes(n))
    .sort((a, b) => (only ? only.indexOf(a) - only.indexOf(b) : Number(a) - Number(b) || a.localeCompare(b)));
  const saved: SavedFile[] = [];
  for (const n of nodes) {
    for (const list of Object.values(entry.outputs![n]!)) {
      if (!Array.isArray(list)) continue; // e.g. "animated": [true] or text outputs
      for (const f of list as unknown[]) {
        if (isRecord(f) && typeof f.filename === 'string' && (includeTemp || (f.type ?? 'output') === 'output')) saved.push(f as unknown as SavedFile);
      }
    }
  }
  if (saved.length === 0) throw new EngineError('ComfyUI finished but the workflow saved no output file (does it end in a Save node?)');
  const files: FileOutput[] = [];
  for (const [i, f] of saved.entries()) {
    const q = new URLSearchParams({ filename: f.filename, subfolder: f.subfolder ?? '', type: f.type ?? 'output' });
    const res = await client.request(`view?${q}`, { signal: scope.signal, deadline: scope.deadline, headers: { accept: '*/*' } });
    if (res.body.length > maxBytes) throw new EngineError(`ComfyUI output ${f.filename} is larger than the download limit of ${maxBytes} bytes`);
    const base = saved.length > 1 ? `result-${i + 1}` : 'result';
    const kinds = expectedKinds(options.expect);
    files.push(kinds ? expectMedia(res.body, kinds, base, 'ComfyUI') : fileOutput(res.body, base));
  }
  return files;
}
