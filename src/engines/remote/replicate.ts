import type { Engine, EngineOutputs } from '../types.js';
import { EngineError } from '../types.js';
import { ProviderClient, ProviderHttpError, ProviderUnansweredError } from './http.js';
import { mapInput, mappingFrom, resolveMediaFields } from './inputs.js';
import { cancelQuietly, progressFromLogs, unconfiguredEngine, waitForJob, type PollResult, type RemoteJob } from './job.js';
import { filesFromResult, textFromResult } from './outputs.js';
import { replicateMedia } from './mediaHandoff.js';
import { findCreated } from './replicateLookup.js';
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
            // Only a prediction that is surely ours is canceled: of several alike, the others are other runs'.
            await cancelQuietly({ label: `Replicate prediction of ${what}`, cancel: async (signal) => {
              const r = await findCreated(client, { model, versionId, input, sentAt }, signal);
              if (r.found === 'one') await client.request(sameHostUrl(client, r.prediction.urls?.cancel, `predictions/${r.prediction.id}/cancel`), { method: 'POST', signal, retry: false });
            } }, ctx, common);
            throw err;
          }
          if (!(err instanceof ProviderUnansweredError && err.maybeActed) && !(err instanceof ProviderHttpError && err.status >= 500)) throw err;
          // No answer, or a 5xx: the prediction may exist. Replicate takes no client-chosen id, so look for it
          // among the predictions created since (same model or version, same input; replicateLookup.ts); never
          // create it again. Failing here is not retryable: a retry of the run would pay twice.
          const r = await findCreated(client, { model, versionId, input, sentAt }, scope.signal).catch((lookupErr: Error) => {
            if (scope.stopped()) throw lookupErr;
            throw new EngineError(`${(err as Error).message}; looking the prediction up failed too (${lookupErr.message}), so it was not created again`, false);
          });
          if (r.found === 'none') throw new EngineError(`${(err as Error).message}; Replicate may have created the prediction, and none matching it is listed, so it was not created again`, false);
          if (r.found === 'many') {
            throw new EngineError(`${(err as Error).message}; Replicate lists ${r.ids.length} predictions of ${what} with this same input created since (${r.ids.join(', ')}), and which is this run's cannot be told, so none was adopted and none created again`, false);
          }
          ctx.log.warn('replicate create answer lost; adopted the prediction it created', { predictionId: r.prediction.id });
          prediction = r.prediction as Prediction;
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

/** A URL Replicate gave, if it stays on the configured host (the token goes with it); else the path built here. */
function sameHostUrl(client: ProviderClient, u: string | undefined, fallback: string): string {
  try {
    return u ? client.url(u).href : fallback;
  } catch {
    return fallback;
  }
}

function describe(e: unknown): string {
  if (typeof e === 'string') return e;
  if (e === null || e === undefined) return '';
  return JSON.stringify(e);
}
