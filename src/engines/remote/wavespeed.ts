import type { Engine, EngineContext, FileOutput } from '../types.js';
import { EngineError, EngineInputError } from '../types.js';
import { ProviderClient } from './http.js';
import { isRecord, stringOption } from './inputs.js';
import { unconfiguredEngine, waitForJob, type PollResult, type RemoteJob } from './job.js';
import { downloadOutput, expectMedia } from './outputs.js';
import { blobPart, firstUrl } from './providerInputs.js';
import { runScope, type RunScope } from './signals.js';
import { resolveCommon, type RemoteCommonSettings } from './settings.js';

/**
 * WaveSpeedAI's v3 API (https://api.wavespeed.ai/api/v3, `Authorization: Bearer <key>`), asynchronous:
 * POST /{model} with the model's inputs → `{code, message, data: {id, status, urls: {get}}}`; GET
 * /predictions/{id}/result until `data.status` is `completed` (with `data.outputs`, a list of file URLs)
 * or `failed` (with `data.error`). Media inputs are handed over as URLs WaveSpeed can fetch: the bytes
 * (fetched through the guarded fetcher) are first uploaded with POST /media/upload/binary (multipart
 * `file` → `data.download_url`), which also serves own-file and data: URLs WaveSpeed could not read.
 * WaveSpeed documents no way to stop a prediction: a canceled run stops polling and says so in the log.
 *
 * Binding options: model (the WaveSpeed model path, e.g. `wavespeed-ai/video-upscaler-pro`), inputMap
 * (hosted field → WaveSpeed parameter; null drops it), media (hosted media fields and their kind),
 * optional (media fields that may be left out), params (fixed parameters), output (`video` | `image` |
 * `audio`, the kind the outputs must be).
 */
export interface WaveSpeedSettings extends RemoteCommonSettings {
  apiKey?: string;
  /** Default https://api.wavespeed.ai/api/v3. */
  baseUrl?: string;
}

export const WAVESPEED_DEFAULT_BASE_URL = 'https://api.wavespeed.ai/api/v3';
const REQUIREMENTS = ['WAVESPEED_API_KEY (optional WAVESPEED_BASE_URL)'];
type Kind = 'image' | 'audio' | 'video';

interface Envelope<T> { code?: number; message?: string; data?: T }
interface Prediction { id?: string; status?: string; outputs?: unknown[]; error?: string; urls?: { get?: string } }

export function createWaveSpeedEngine(s: WaveSpeedSettings): Engine {
  if (!s.apiKey) return unconfiguredEngine('wavespeed', REQUIREMENTS, 'set WAVESPEED_API_KEY to run models on WaveSpeedAI');
  const common = resolveCommon(s);
  const client = new ProviderClient({
    label: 'WaveSpeed',
    baseUrl: s.baseUrl || WAVESPEED_DEFAULT_BASE_URL,
    headers: { authorization: `Bearer ${s.apiKey}` },
    secrets: [s.apiKey],
    credentialHint: 'WAVESPEED_API_KEY',
    retry: s.retry,
  });

  /** The `data` of an answer, refusing one whose own `code` says it failed. */
  const dataOf = <T>(body: Envelope<T>, what: string): T => {
    if (body.code !== undefined && body.code !== 200) throw new EngineError(`WaveSpeed refused ${what} (code ${body.code}): ${client.scrub(body.message ?? 'no reason given')}`);
    if (!isRecord(body.data)) throw new EngineError(`WaveSpeed answered ${what} without data`);
    return body.data as T;
  };

  async function upload(url: string, kind: Kind, ctx: EngineContext, scope: RunScope): Promise<string> {
    const media = await ctx.fetchMedia(url, { accept: kind });
    const form = new FormData();
    form.set('file', ...blobPart(media, kind));
    const res = await client.request('media/upload/binary', { body: form, signal: scope.signal, deadline: scope.deadline, timeoutMs: common.downloadTimeoutMs });
    const link = dataOf(res.json<Envelope<{ download_url?: string }>>(), 'the upload').download_url;
    if (typeof link !== 'string' || !/^https?:\/\//.test(link)) throw new EngineError('WaveSpeed accepted the upload but sent no download_url');
    return link;
  }

  return {
    id: 'wavespeed',
    requirements: REQUIREMENTS,
    availability: async () => ({ available: true }),
    async execute(req, ctx) {
      const { input, options } = req;
      const model = stringOption(options, 'model', 'wavespeed').replace(/^\/+|\/+$/g, '');
      if (!/^[\w.-]+(\/[\w.-]+)+$/.test(model)) throw new EngineError(`wavespeed binding: options.model "${model}" is not a model path`);
      const inputMap = (isRecord(options.inputMap) ? options.inputMap : {}) as Record<string, string | null>;
      const mediaKinds = (isRecord(options.media) ? options.media : {}) as Record<string, Kind>;
      const outKind = (['image', 'audio', 'video'].includes(options.output as string) ? options.output : 'video') as Kind;
      const scope = runScope(ctx);
      try {
        const body: Record<string, unknown> = { ...(isRecord(options.params) ? options.params : {}) };
        for (const [k, v] of Object.entries(input)) {
          if (v === undefined || v === null || v === '') continue;
          const target = k in inputMap ? inputMap[k] : k;
          if (target === null || target === undefined) continue;
          const kind = mediaKinds[k];
          if (kind) {
            const url = firstUrl(v);
            if (!url) continue;
            ctx.progress(0.02, `uploading ${k} to WaveSpeed`);
            body[target] = await upload(url, kind, ctx, scope);
          } else body[target] = v;
        }
        for (const [k, kind] of Object.entries(mediaKinds)) {
          const target = k in inputMap ? inputMap[k] : k;
          if (target && body[target] === undefined && !(Array.isArray(options.optional) && options.optional.includes(k))) {
            throw new EngineInputError(`${k} is required (${kind})`);
          }
        }
        const created = dataOf((await client.request(model, { json: body, signal: scope.signal, deadline: scope.deadline, retry: 'safe' })).json<Envelope<Prediction>>(), 'the submission');
        const id = created.id;
        if (typeof id !== 'string' || !/^[\w-]+$/.test(id)) throw new EngineError('WaveSpeed accepted the prediction but sent no id');
        ctx.log.info('wavespeed prediction created', { model, predictionId: id });
        let first = true;
        const job: RemoteJob<unknown[]> = {
          label: `WaveSpeed prediction ${id}`,
          async poll(signal): Promise<PollResult<unknown[]>> {
            const p = first && created.status === 'completed' ? created : dataOf((await client.request(`predictions/${id}/result`, { signal, deadline: scope.deadline })).json<Envelope<Prediction>>(), 'the status');
            first = false;
            switch (p.status) {
              case 'completed':
                return { done: true, value: Array.isArray(p.outputs) ? p.outputs : [] };
              case 'failed':
                throw new EngineError(`WaveSpeed prediction ${id} failed: ${client.scrub(p.error || 'no reason given')}`);
              case 'created':
                return { done: false, progress: 0.05, message: 'queued on WaveSpeed' };
              case 'processing':
                return { done: false, progress: 0.3, message: 'running on WaveSpeed' };
              default:
                throw new EngineError(`WaveSpeed reported an unknown status "${String(p.status)}"`);
            }
          },
          async cancel() {
            ctx.log.warn(`WaveSpeed offers no cancel: prediction ${id} may run to its end at the provider`);
          },
        };
        const outputs = await waitForJob(job, scope, ctx, common);
        const urls = outputs.filter((o): o is string => typeof o === 'string' && /^(https?:|data:)/.test(o));
        if (urls.length === 0) throw new EngineError('WaveSpeed finished but returned no output file');
        ctx.progress(0.95, 'downloading results');
        const files: FileOutput[] = [];
        for (const [i, u] of urls.entries()) {
          const base = urls.length > 1 ? `result-${i + 1}` : 'result';
          files.push(expectMedia(await downloadOutput(u, common, scope.signal, 'WaveSpeed'), [outKind], base, 'WaveSpeed'));
        }
        return { result: files };
      } catch (err) {
        if (scope.stopped()) throw scope.stopError(`WaveSpeed model ${model}`);
        throw err;
      } finally {
        scope.dispose();
      }
    },
  };
}
