import type { Engine, EngineOutputs } from '../types.js';
import { EngineError } from '../types.js';
import { ProviderClient } from './http.js';
import { mapInput, mappingFrom, resolveMediaFields } from './inputs.js';
import { progressFromLogs, unconfiguredEngine, waitForJob, type PollResult, type RemoteJob } from './job.js';
import { filesFromResult, textFromResult } from './outputs.js';
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
        const input = mapInput(await resolveMediaFields(req.input, ctx), mappingFrom(o));
        const wait = typeof o.wait === 'number' ? Math.max(1, Math.min(60, Math.round(o.wait))) : undefined;
        const headers: Record<string, string> = wait ? { prefer: `wait=${wait}` } : {};
        // Prefer: wait holds the answer up to `wait` seconds: give the request that long and a margin.
        const timeoutMs = wait ? Math.max(client.policy.requestTimeoutMs, (wait + 15) * 1000) : undefined;
        const created = version
          ? await client.request('predictions', { json: { version: version.includes(':') ? version.split(':').pop() : version, input }, headers, timeoutMs, signal: scope.signal, deadline: scope.deadline })
          : await client.request(`models/${model}/predictions`, { json: { input }, headers, timeoutMs, signal: scope.signal, deadline: scope.deadline });
        let prediction = created.json<Prediction>();
        if (!prediction.id) throw new EngineError('Replicate accepted the prediction but sent no id');
        ctx.log.info('replicate prediction created', { model: what, predictionId: prediction.id });
        const sameHost = (u: string | undefined, fallback: string) => {
          try {
            return u ? client.url(u).href : fallback;
          } catch {
            return fallback;
          }
        };
        const getUrl = sameHost(prediction.urls?.get, `predictions/${prediction.id}`);
        const cancelUrl = sameHost(prediction.urls?.cancel, `predictions/${prediction.id}/cancel`);

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

function describe(e: unknown): string {
  if (typeof e === 'string') return e;
  if (e === null || e === undefined) return '';
  return JSON.stringify(e);
}
