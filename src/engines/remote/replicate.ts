import type { Engine, EngineOutputs } from '../types.js';
import { EngineError } from '../types.js';
import { ProviderClient, ProviderHttpError, ProviderUnansweredError } from './http.js';
import { isDeepStrictEqual } from 'node:util';
import { mapInput, mappingFrom, resolveMediaFields } from './inputs.js';
import { cancelQuietly, progressFromLogs, unconfiguredEngine, waitForJob, type PollResult, type RemoteJob } from './job.js';
import { filesFromResult, textFromResult } from './outputs.js';
import { replicateMedia } from './mediaHandoff.js';
import { runScope } from './signals.js';
import { resolveCommon, type RemoteCommonSettings } from './settings.js';

/**
 * Replicate's predictions API: POST /predictions `{ version, input }` for a model version, or
 * POST /models/{owner}/{name}/predictions `{ input }` for an official model; poll GET /predictions/{id}
 * while it is `starting` or `processing` until `succeeded`, `failed` or `canceled`; POST
 * /predictions/{id}/cancel to stop it. Authorization is `Bearer <REPLICATE_API_TOKEN>`. With
 * `options.wait` (1–60 s) the create request carries `Prefer: wait=N` and may come back finished.
 *
 * Binding options: version ("<hash>" or "owner/name:<hash>") or model ("owner/name"), wait, params,
 * inputMap, output ("files" | "text"), outputPath.
 */
export interface ReplicateSettings extends RemoteCommonSettings {
  apiToken?: string;
  /** Default https://api.replicate.com/v1. */
  baseUrl?: string;
}

export const REPLICATE_DEFAULT_BASE_URL = 'https://api.replicate.com/v1';
const REQUIREMENTS = ['REPLICATE_API_TOKEN (optional REPLICATE_BASE_URL)'];

interface Prediction {
  id: string;
  status: 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled' | 'aborted' | string;
  output?: unknown;
  error?: unknown;
  logs?: string | null;
  urls?: { get?: string; cancel?: string };
}

export function createReplicateEngine(s: ReplicateSettings): Engine {
  if (!s.apiToken) return unconfiguredEngine('replicate', REQUIREMENTS, 'set REPLICATE_API_TOKEN to run models on Replicate');
  const common = resolveCommon(s);
  const client = new ProviderClient({
    label: 'Replicate',
    baseUrl: s.baseUrl || REPLICATE_DEFAULT_BASE_URL,
    headers: { authorization: `Bearer ${s.apiToken}` },
    secrets: [s.apiToken],
    credentialHint: 'REPLICATE_API_TOKEN',
    retry: s.retry,
  });

  return {
    id: 'replicate',
    requirements: REQUIREMENTS,
    availability: async () => ({ available: true }),
    async execute(req, ctx) {
      const o = req.options;
      const version = typeof o.version === 'string' && o.version ? o.version : undefined;
      const model = typeof o.model === 'string' && o.model ? o.model : undefined;
      if (!version && !model) throw new EngineError('the catalog binding of engine replicate needs options.version or options.model');
      if (model && !/^[\w.-]+\/[\w.-]+$/.test(model)) throw new EngineError(`replicate binding: options.model must be "owner/name", got "${model}"`);
      const what = model ?? version!;
      const scope = runScope(ctx);
      try {
        const input = mapInput(await resolveMediaFields(req.input, ctx, (m) => replicateMedia(client, m, scope)), mappingFrom(o));
        const wait = typeof o.wait === 'number' ? Math.max(1, Math.min(60, Math.round(o.wait))) : undefined;
        const headers: Record<string, string> = wait ? { prefer: `wait=${wait}` } : {};
        // Prefer: wait holds the answer up to `wait` seconds: give the request that long and a margin.
        const timeoutMs = wait ? Math.max(client.policy.requestTimeoutMs, (wait + 15) * 1000) : undefined;
        const versionId = version?.includes(':') ? version.split(':').pop()! : version;
        const sentAt = Date.now();
        let prediction: Prediction;
        try {
          // Retried only on 429 and a connection never made, as Replicate's client does: any other failure may
          // have started the (paid) prediction.
          const created = versionId
            ? await client.request('predictions', { json: { version: versionId, input }, headers, timeoutMs, signal: scope.signal, deadline: scope.deadline, retry: 'safe' })
            : await client.request(`models/${model}/predictions`, { json: { input }, headers, timeoutMs, signal: scope.signal, deadline: scope.deadline, retry: 'safe' });
          prediction = created.json<Prediction>();
        } catch (err) {
          if (scope.stopped()) {
            // Stopped while the create was in flight: the prediction may exist and would run on, paid for.
            await cancelQuietly({ label: `Replicate prediction of ${what}`, cancel: async (signal) => {
              const found = await findCreated(client, { model, versionId, input, sentAt }, signal);
              if (found) await client.request(sameHostUrl(client, found.urls?.cancel, `predictions/${found.id}/cancel`), { method: 'POST', signal, retry: false });
            } }, ctx, common);
            throw err;
          }
          if (!(err instanceof ProviderUnansweredError && err.maybeActed) && !(err instanceof ProviderHttpError && err.status >= 500)) throw err;
          // No answer, or a 5xx: the prediction may exist. Replicate takes no client-chosen id, so look for it
          // among the predictions created since (same model or version, same input); never create it again.
          const found = await findCreated(client, { model, versionId, input, sentAt }, scope.signal);
          if (!found) throw new EngineError(`${(err as Error).message}; Replicate may have created the prediction, and none matching it is listed, so it was not created again`, false);
          ctx.log.warn('replicate create answer lost; adopted the prediction it created', { predictionId: found.id });
          prediction = found;
        }
        if (!prediction.id) throw new EngineError('Replicate accepted the prediction but sent no id');
        ctx.log.info('replicate prediction created', { model: what, predictionId: prediction.id });
        const getUrl = sameHostUrl(client, prediction.urls?.get, `predictions/${prediction.id}`);
        const cancelUrl = sameHostUrl(client, prediction.urls?.cancel, `predictions/${prediction.id}/cancel`);

        // The first poll judges the create answer, which may already be final (Prefer: wait).
        let first = true;
        const job: RemoteJob<Prediction> = {
          label: `Replicate prediction ${prediction.id}`,
          async poll(signal): Promise<PollResult<Prediction>> {
            if (!first) prediction = (await client.request(getUrl, { signal, deadline: scope.deadline })).json<Prediction>();
            first = false;
            return judge(prediction);
          },
          async cancel(signal) {
            await client.request(cancelUrl, { method: 'POST', signal, retry: false });
          },
        };
        const done = await waitForJob(job, scope, ctx, common);
        ctx.progress(0.95, 'downloading results');
        return await outputsOf(done.output, o);
      } catch (err) {
        if (scope.stopped()) throw scope.stopError(`Replicate model ${what}`);
        throw err;
      } finally {
        scope.dispose();
      }

      function judge(p: Prediction): PollResult<Prediction> {
        switch (p.status) {
          case 'succeeded':
            return { done: true, value: p };
          case 'starting':
            return { done: false, progress: 0.05, message: 'starting on Replicate' };
          case 'processing': {
            const fraction = progressFromLogs((p.logs ?? '').split('\n'));
            return { done: false, progress: 0.1 + 0.8 * (fraction ?? 0), message: 'running on Replicate' };
          }
          case 'failed':
          case 'aborted':
            throw new EngineError(`Replicate prediction ${p.id} ${p.status}: ${client.scrub(describe(p.error) || 'no reason given')}`);
          case 'canceled':
            throw new EngineError(`Replicate prediction ${p.id} was canceled on Replicate`);
          default:
            throw new EngineError(`Replicate reported an unknown status "${String(p.status)}"`);
        }
      }

      async function outputsOf(output: unknown, opts: Record<string, unknown>): Promise<EngineOutputs> {
        if (opts.output === 'text') return { output: { kind: 'text', text: textFromResult(output, opts.outputPath as string | undefined, 'Replicate') } };
        return { result: await filesFromResult(output, { path: opts.outputPath as string | undefined, common, signal: scope.signal, label: 'Replicate', expect: opts.expect }) };
      }
    },
  };
}

/**
 * The prediction a create whose answer was lost made, if any: GET /predictions narrowed to those created from
 * a little before the create was sent (clocks differ) until now, then each candidate of the same model or
 * version read whole (list items carry no input) and matched by its input. Undefined when none matches.
 */
/** A URL Replicate gave, if it stays on the configured host (the token goes with it); else the path built here. */
function sameHostUrl(client: ProviderClient, u: string | undefined, fallback: string): string {
  try {
    return u ? client.url(u).href : fallback;
  } catch {
    return fallback;
  }
}

const CLOCK_SKEW_MS = 10_000;

async function findCreated(client: ProviderClient, sent: { model?: string; versionId?: string; input: Record<string, unknown>; sentAt: number }, signal: AbortSignal): Promise<Prediction | undefined> {
  const q = new URLSearchParams({ created_after: new Date(sent.sentAt - CLOCK_SKEW_MS).toISOString() });
  const lookup = AbortSignal.any([signal, AbortSignal.timeout(30_000)]);
  const list = (await client.request(`predictions?${q}`, { signal: lookup })).json<{ results?: Array<Prediction & { model?: string; version?: string; created_at?: string }> }>();
  for (const item of list.results ?? []) {
    if (sent.versionId ? item.version !== sent.versionId : item.model !== sent.model) continue;
    const full = (await client.request(`predictions/${encodeURIComponent(item.id)}`, { signal: lookup })).json<Prediction & { input?: unknown }>();
    if (isDeepStrictEqual(full.input, sent.input)) return full;
  }
  return undefined;
}

function describe(e: unknown): string {
  if (typeof e === 'string') return e;
  if (e === null || e === undefined) return '';
  return JSON.stringify(e);
}
