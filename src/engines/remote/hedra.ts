import type { Engine, Media } from '../types.js';
import { EngineError } from '../types.js';
import { ProviderClient } from './http.js';
import { stringOption } from './inputs.js';
import { unconfiguredEngine, waitForJob, type PollResult, type RemoteJob } from './job.js';
import { downloadOutput, expectMedia } from './outputs.js';
import { blobPart, num, requiredMedia, str } from './providerInputs.js';
import { runScope, type RunScope } from './signals.js';
import { resolveCommon, type RemoteCommonSettings } from './settings.js';

/**
 * Hedra's public API (https://api.hedra.com/web-app/public, header `X-API-Key`), as its starter kit
 * (github.com/hedra-labs/hedra-api-starter) uses it: each input file becomes an asset (POST /assets
 * `{name, type}` → `{id}`, then POST /assets/{id}/upload with multipart `file`); POST /generations
 * `{type: "video", ai_model_id, start_keyframe_id, audio_id, generated_video_inputs: {text_prompt,
 * resolution, aspect_ratio}}` → `{id}`; GET /generations/{id}/status until `complete` (with
 * `download_url`) or `error` (with `error_message`). Hedra documents no cancel: a canceled run stops polling.
 *
 * Binding options: model (Hedra's `ai_model_id`, Character-3 by default).
 */
export interface HedraSettings extends RemoteCommonSettings {
  apiKey?: string;
  /** Default https://api.hedra.com/web-app/public. */
  baseUrl?: string;
}

export const HEDRA_DEFAULT_BASE_URL = 'https://api.hedra.com/web-app/public';
const REQUIREMENTS = ['HEDRA_API_KEY (optional HEDRA_BASE_URL)'];

interface Status { status?: string; progress?: number; url?: string | null; download_url?: string | null; error_message?: string | null }

export function createHedraEngine(s: HedraSettings): Engine {
  if (!s.apiKey) return unconfiguredEngine('hedra', REQUIREMENTS, 'set HEDRA_API_KEY to run models on Hedra');
  const common = resolveCommon(s);
  const client = new ProviderClient({
    label: 'Hedra',
    baseUrl: s.baseUrl || HEDRA_DEFAULT_BASE_URL,
    headers: { 'x-api-key': s.apiKey },
    secrets: [s.apiKey],
    credentialHint: 'HEDRA_API_KEY',
    retry: s.retry,
  });

  async function asset(media: Media, kind: 'image' | 'audio', scope: RunScope): Promise<string> {
    const [blob, name] = blobPart(media, kind);
    const created = (await client.request('assets', { json: { name, type: kind }, signal: scope.signal, deadline: scope.deadline })).json<{ id?: string }>();
    if (typeof created.id !== 'string' || !/^[\w-]+$/.test(created.id)) throw new EngineError('Hedra created the asset but sent no id');
    const form = new FormData();
    form.set('file', blob, name);
    await client.request(`assets/${created.id}/upload`, { body: form, signal: scope.signal, deadline: scope.deadline, timeoutMs: common.downloadTimeoutMs });
    return created.id;
  }

  return {
    id: 'hedra',
    requirements: REQUIREMENTS,
    availability: async () => ({ available: true }),
    async execute(req, ctx) {
      const { input, options } = req;
      const model = stringOption(options, 'model', 'hedra');
      const scope = runScope(ctx);
      try {
        // Both inputs are fetched and checked before Hedra is asked for anything.
        const image = await requiredMedia(input, 'image_url', ctx, 'image');
        const audio = await requiredMedia(input, 'audio_url', ctx, 'audio');
        ctx.progress(0.02, 'uploading to Hedra');
        const imageId = await asset(image, 'image', scope);
        const audioId = await asset(audio, 'audio', scope);
        const seed = num(input.seed);
        const gen = (await client.request('generations', {
          json: {
            type: 'video',
            ai_model_id: model,
            start_keyframe_id: imageId,
            audio_id: audioId,
            generated_video_inputs: {
              text_prompt: str(input.text_prompt) ?? '',
              resolution: str(input.resolution) ?? '720p',
              aspect_ratio: str(input.aspect_ratio) ?? '9:16',
              ...(seed !== undefined ? { seed } : {}),
            },
          },
          signal: scope.signal,
          deadline: scope.deadline,
          retry: 'safe',
        })).json<{ id?: string }>();
        const id = gen.id;
        if (typeof id !== 'string' || !/^[\w-]+$/.test(id)) throw new EngineError('Hedra accepted the generation but sent no id');
        ctx.log.info('hedra generation created', { generationId: id });
        const job: RemoteJob<string> = {
          label: `Hedra generation ${id}`,
          async poll(signal): Promise<PollResult<string>> {
            const st = (await client.request(`generations/${id}/status`, { signal, deadline: scope.deadline })).json<Status>();
            switch (st.status) {
              case 'complete': {
                const link = st.download_url ?? st.url;
                if (typeof link !== 'string' || !link) throw new EngineError(`Hedra generation ${id} completed without a download_url`);
                return { done: true, value: link };
              }
              case 'error':
                throw new EngineError(`Hedra generation ${id} failed: ${client.scrub(st.error_message || 'no reason given')}`);
              case 'queued':
              case 'pending':
                return { done: false, progress: 0.05, message: 'queued on Hedra' };
              case 'processing':
              case 'finalizing': {
                const p = typeof st.progress === 'number' && st.progress >= 0 && st.progress <= 1 ? st.progress : 0;
                return { done: false, progress: 0.1 + 0.8 * p, message: 'rendering on Hedra' };
              }
              default:
                throw new EngineError(`Hedra reported an unknown status "${String(st.status)}"`);
            }
          },
          async cancel() {
            ctx.log.warn(`Hedra offers no cancel: generation ${id} may run to its end at the provider`);
          },
        };
        const link = await waitForJob(job, scope, ctx, common);
        ctx.progress(0.95, 'downloading the video');
        return { result: [expectMedia(await downloadOutput(link, common, scope.signal, 'Hedra'), ['video'], 'lipsync', 'Hedra')] };
      } catch (err) {
        if (scope.stopped()) throw scope.stopError('Hedra generation');
        throw err;
      } finally {
        scope.dispose();
      }
    },
  };
}
