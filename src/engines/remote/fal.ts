import type { Engine, EngineContext, EngineOutputs, ExecuteRequest } from '../types.js';
import { EngineError } from '../types.js';
import { ProviderClient, ProviderHttpError, ProviderUnansweredError } from './http.js';
import { mapInput, mappingFrom, resolveMediaFields, stringOption } from './inputs.js';
import { progressFromLogs, unconfiguredEngine, waitForJob, type PollResult, type RemoteJob } from './job.js';
import { filesFromResult, textFromResult } from './outputs.js';
import { falMedia } from './mediaHandoff.js';
import { runScope, type RunScope } from './signals.js';
import { resolveCommon, type RemoteCommonSettings, type ResolvedCommon } from './settings.js';

/**
 * fal.ai through its queue API: POST {queue}/{model} submits and answers with a request id and the
 * status/response/cancel URLs; GET …/requests/{id}/status reports IN_QUEUE (with queue_position),
 * IN_PROGRESS (with logs) or COMPLETED; GET …/requests/{id} gives the result JSON (or the error);
 * PUT …/requests/{id}/cancel stops it. Authorization is `Key <FAL_KEY>`. A binding with
 * `options.sync: true` calls the synchronous endpoint {base}/{model} instead, for quick models.
 *
 * Binding options: model (endpoint id, e.g. "fal-ai/flux-pro/v1.1"), params, inputMap, output
 * ("files" | "text"), outputPath (where the files are in the result), textPath (default "text").
 */
export interface FalSettings extends RemoteCommonSettings {
  apiKey?: string;
  /** Synchronous endpoint base, default https://fal.run. */
  baseUrl?: string;
  /** Queue base, default https://queue.fal.run. */
  queueUrl?: string;
  /** Storage API base for input uploads, default https://rest.alpha.fal.ai (as fal's client uses). */
  storageUrl?: string;
}

export const FAL_DEFAULT_BASE_URL = 'https://fal.run';
export const FAL_DEFAULT_QUEUE_URL = 'https://queue.fal.run';
export const FAL_DEFAULT_STORAGE_URL = 'https://rest.alpha.fal.ai';
const REQUIREMENTS = ['FAL_KEY (optional FAL_BASE_URL, FAL_QUEUE_URL, FAL_STORAGE_URL)'];

interface FalSubmit {
  request_id: string;
  status_url?: string;
  response_url?: string;
  cancel_url?: string;
  queue_position?: number;
}

interface FalStatus {
  status: 'IN_QUEUE' | 'IN_PROGRESS' | 'COMPLETED' | string;
  queue_position?: number;
  logs?: Array<{ message?: string }> | null;
  error?: string | null;
  error_type?: string | null;
}

export function createFalEngine(s: FalSettings): Engine {
  if (!s.apiKey) return unconfiguredEngine('fal', REQUIREMENTS, 'set FAL_KEY to run models on fal.ai');
  const common = resolveCommon(s);
  const shared = { headers: { authorization: `Key ${s.apiKey}` }, secrets: [s.apiKey], credentialHint: 'FAL_KEY', retry: s.retry };
  const queue = new ProviderClient({ label: 'fal', baseUrl: s.queueUrl || FAL_DEFAULT_QUEUE_URL, ...shared });
  const sync = new ProviderClient({ label: 'fal', baseUrl: s.baseUrl || FAL_DEFAULT_BASE_URL, ...shared });
  const storage = new ProviderClient({ label: 'fal storage', baseUrl: s.storageUrl || FAL_DEFAULT_STORAGE_URL, ...shared });

  return {
    id: 'fal',
    requirements: REQUIREMENTS,
    availability: async () => ({ available: true }),
    async execute(req, ctx) {
      const model = stringOption(req.options, 'model', 'fal').replace(/^\/+|\/+$/g, '');
      const scope = runScope(ctx);
      try {
        const upload = { allowPrivate: common.allowPrivate, timeoutMs: common.downloadTimeoutMs };
        const input = mapInput(await resolveMediaFields(req.input, ctx, (m) => falMedia(storage, m, scope, upload)), mappingFrom(req.options));
        let result: unknown;
        if (req.options.sync === true) {
          ctx.progress(0.1, 'running on fal');
          result = (await sync.request(model, { json: input, signal: scope.signal, deadline: scope.deadline })).json();
        } else {
          result = await viaQueue(queue, model, input, ctx, scope, common);
        }
        ctx.progress(0.95, 'downloading results');
        return await outputsOf(result, req, common, scope);
      } catch (err) {
        if (scope.stopped()) throw scope.stopError(`fal model ${model}`);
        throw err;
      } finally {
        scope.dispose();
      }
    },
  };
}

async function viaQueue(client: ProviderClient, model: string, input: Record<string, unknown>, ctx: EngineContext, scope: RunScope, common: ResolvedCommon): Promise<unknown> {
  const submitted = (await submit(client, model, input, scope)).json<FalSubmit>();
  if (!submitted.request_id) throw new EngineError('fal accepted the job but sent no request_id');
  const id = submitted.request_id;
  const app = falAppId(model);
  const own = (u: string | undefined, fallback: string) => {
    if (!u) return fallback;
    try {
      return client.url(u).href; // only if it stays on the configured queue host
    } catch {
      return fallback;
    }
  };
  const statusUrl = own(submitted.status_url, `${app}/requests/${id}/status`);
  const responseUrl = own(submitted.response_url, `${app}/requests/${id}`);
  const cancelUrl = own(submitted.cancel_url, `${app}/requests/${id}/cancel`);
  ctx.log.info('fal job submitted', { model, requestId: id });

  const job: RemoteJob<void> = {
    label: `fal job ${id}`,
    async poll(signal): Promise<PollResult<void>> {
      const url = new URL(client.url(statusUrl));
      url.searchParams.set('logs', '1');
      const st = (await client.request(url.href, { signal, deadline: scope.deadline })).json<FalStatus>();
      if (st.status === 'COMPLETED') {
        if (st.error) throw new EngineError(`fal job failed: ${client.scrub(st.error)}${st.error_type ? ` (${st.error_type})` : ''}`);
        return { done: true, value: undefined };
      }
      if (st.status === 'IN_QUEUE') return { done: false, progress: 0.02, message: `in fal queue${st.queue_position !== undefined ? ` (position ${st.queue_position})` : ''}` };
      if (st.status === 'IN_PROGRESS') {
        const p = progressFromLogs((st.logs ?? []).map((l) => l.message ?? ''));
        return { done: false, progress: 0.1 + 0.8 * (p ?? 0), message: 'running on fal' };
      }
      // A status fal's client does not know (a new state) is not an end: it keeps polling, and so do we.
      return { done: false, message: `on fal (${String(st.status)})` };
    },
    async cancel(signal) {
      await client.request(cancelUrl, { method: 'PUT', signal, retry: false, accept: [400, 404] });
    },
  };
  await waitForJob(job, scope, ctx, common);
  // A failed job answers its result URL with the error (422 validation details, 500 detail): that answer is
  // final, so only what says nothing about the job (429, gateway errors, no answer) is asked again.
  return (await client.request(responseUrl, { signal: scope.signal, deadline: scope.deadline, retry: 'safe', safeStatuses: FAL_GATEWAY_STATUSES })).json();
}

/** Statuses fal's client retries: its gateway's, given before the request reached the app. */
const FAL_GATEWAY_STATUSES = [502, 503, 504];

/**
 * The call that starts paid work. Sent again only where fal's client does (429 and its gateway errors,
 * a connection that was never made); after any other failure the job may exist, and since fal has no
 * way to find a job without its request id, the run fails rather than paying for a second one.
 */
async function submit(client: ProviderClient, model: string, input: Record<string, unknown>, scope: RunScope) {
  try {
    return await client.request(model, { json: input, signal: scope.signal, deadline: scope.deadline, retry: 'safe', safeStatuses: FAL_GATEWAY_STATUSES });
  } catch (err) {
    if (scope.stopped()) throw err;
    const ambiguous = (err instanceof ProviderUnansweredError && err.maybeActed) || (err instanceof ProviderHttpError && err.status >= 500 && !FAL_GATEWAY_STATUSES.includes(err.status));
    if (!ambiguous) throw err;
    throw new EngineError(`${(err as Error).message}; fal may have accepted the job, so it was not submitted again (check the fal dashboard)`, false);
  }
}

/**
 * The app id an endpoint's status and result live under, as fal's client parses endpoint ids: owner/alias
 * without the endpoint's sub-path, and namespace/owner/alias for the `workflows/` and `comfy/` namespaces.
 */
export function falAppId(model: string): string {
  const parts = model.split('/');
  return parts.slice(0, FAL_NAMESPACES.includes(parts[0]!) ? 3 : 2).join('/');
}
const FAL_NAMESPACES = ['workflows', 'comfy'];

async function outputsOf(result: unknown, req: ExecuteRequest, common: ResolvedCommon, scope: RunScope): Promise<EngineOutputs> {
  const o = req.options;
  if (o.output === 'text') return { output: { kind: 'text', text: textFromResult(result, (o.textPath as string | undefined) ?? 'text', 'fal') } };
  return { result: await filesFromResult(result, { path: o.outputPath as string | undefined, common, signal: scope.signal, label: 'fal', expect: o.expect }) };
}
