import type { Engine, EngineContext, EngineOutputs, ExecuteRequest } from '../types.js';
import { EngineError, EngineInputError } from '../types.js';
import { ProviderClient } from './http.js';
import { stringOption } from './inputs.js';
import { unconfiguredEngine, waitForJob, type PollResult, type RemoteJob } from './job.js';
import { expectMedia } from './outputs.js';
import { blobPart, bool, defined, num, requiredMedia, str } from './providerInputs.js';
import { runScope, type RunScope } from './signals.js';
import { resolveCommon, type RemoteCommonSettings, type ResolvedCommon } from './settings.js';

/**
 * ElevenLabs through its public REST API (https://api.elevenlabs.io/v1, header `xi-api-key`):
 *
 *   tts        POST /text-to-speech/{voice_id}?output_format=…   JSON → audio bytes
 *   sfx        POST /sound-generation?output_format=…            JSON → audio bytes
 *   music      POST /music?output_format=…                       JSON → audio bytes
 *   isolation  POST /audio-isolation                             multipart `audio` → audio bytes
 *   sts        POST /speech-to-speech/{voice_id}?output_format=… multipart `audio` → audio bytes
 *   dubbing    POST /dubbing (multipart `file`, `target_lang`) → { dubbing_id }; GET /dubbing/{id} until
 *              `status` is `dubbed` (or `failed`); GET /dubbing/{id}/audio/{lang} → the dubbed file;
 *              DELETE /dubbing/{id} when the run is canceled.
 *
 * Inputs arrive under the hosted service's names (hosted-catalog.json: `similarityBoost`, `audioUrl`,
 * `targetLanguage`, …) and are translated here. Every call that starts work is paid and carries no
 * idempotency key, so it is retried only where ElevenLabs cannot have acted on it (429, connection
 * refused); polls and downloads are retried freely.
 *
 * Binding options: operation (tts | sfx | music | isolation | sts | dubbing), model (ElevenLabs
 * `model_id`, where the operation takes one), outputFormat (default mp3_44100_128).
 */
export interface ElevenLabsSettings extends RemoteCommonSettings {
  apiKey?: string;
  /** Default https://api.elevenlabs.io/v1. */
  baseUrl?: string;
}

export const ELEVENLABS_DEFAULT_BASE_URL = 'https://api.elevenlabs.io/v1';
const REQUIREMENTS = ['ELEVENLABS_API_KEY (optional ELEVENLABS_BASE_URL)'];
const OPERATIONS = ['tts', 'sfx', 'music', 'isolation', 'sts', 'dubbing'] as const;
type Operation = (typeof OPERATIONS)[number];

/** The hosted dubbing form names languages in English; ElevenLabs takes ISO 639-1 codes. */
export const DUBBING_LANGUAGES: Record<string, string> = {
  English: 'en', Spanish: 'es', French: 'fr', German: 'de', Italian: 'it', Portuguese: 'pt', Chinese: 'zh', Japanese: 'ja',
  Korean: 'ko', Arabic: 'ar', Russian: 'ru', Hindi: 'hi', Dutch: 'nl', Swedish: 'sv', Norwegian: 'no', Danish: 'da',
  Finnish: 'fi', Polish: 'pl', Czech: 'cs', Hungarian: 'hu', Romanian: 'ro', Bulgarian: 'bg', Croatian: 'hr', Slovak: 'sk',
  Slovenian: 'sl', Estonian: 'et', Latvian: 'lv', Lithuanian: 'lt', Maltese: 'mt', Turkish: 'tr', Ukrainian: 'uk', Greek: 'el',
  Filipino: 'fil', Indonesian: 'id', Malay: 'ms', Tamil: 'ta', Vietnamese: 'vi',
};

interface Dubbing {
  dubbing_id?: string;
  status?: string;
  target_languages?: string[];
  error?: string | null;
}

export function createElevenLabsEngine(s: ElevenLabsSettings): Engine {
  if (!s.apiKey) return unconfiguredEngine('elevenlabs', REQUIREMENTS, 'set ELEVENLABS_API_KEY to run models on ElevenLabs');
  const common = resolveCommon(s);
  const client = new ProviderClient({
    label: 'ElevenLabs',
    baseUrl: s.baseUrl || ELEVENLABS_DEFAULT_BASE_URL,
    headers: { 'xi-api-key': s.apiKey },
    secrets: [s.apiKey],
    credentialHint: 'ELEVENLABS_API_KEY',
    retry: s.retry,
  });

  return {
    id: 'elevenlabs',
    requirements: REQUIREMENTS,
    availability: async () => ({ available: true }),
    async execute(req, ctx) {
      const op = req.options.operation as Operation;
      if (!OPERATIONS.includes(op)) throw new EngineError(`the catalog binding of engine elevenlabs needs options.operation, one of ${OPERATIONS.join(', ')}`);
      const scope = runScope(ctx);
      try {
        ctx.progress(0.05, 'sending to ElevenLabs');
        const file = op === 'dubbing' ? await dub(client, req, ctx, scope, common) : await direct(client, op, req, ctx, scope, common);
        ctx.progress(1, 'done');
        return { result: [file] } satisfies EngineOutputs;
      } catch (err) {
        if (scope.stopped()) throw scope.stopError(`ElevenLabs ${op}`);
        throw err;
      } finally {
        scope.dispose();
      }
    },
  };
}

const outputFormat = (o: Record<string, unknown>) => `output_format=${encodeURIComponent(str(o.outputFormat) ?? 'mp3_44100_128')}`;

/** The voice settings object shared by text-to-speech and speech-to-speech, from the hosted names. */
function voiceSettings(input: Record<string, unknown>) {
  return defined({
    stability: num(input.stability),
    similarity_boost: num(input.similarityBoost),
    style: num(input.style),
    speed: num(input.speed),
    use_speaker_boost: bool(input.useSpeakerBoost),
  });
}

function voiceId(input: Record<string, unknown>): string {
  const v = str(input.voice_id)?.trim();
  if (!v) throw new EngineInputError('voice_id is required');
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(v)) throw new EngineInputError(`voice_id "${v}" is not an ElevenLabs voice id`);
  return v;
}

async function direct(client: ProviderClient, op: Exclude<Operation, 'dubbing'>, req: ExecuteRequest, ctx: EngineContext, scope: RunScope, common: ResolvedCommon) {
  const { input, options } = req;
  // The audio comes back in the answer, once it is all made (minutes for a long song): give it a download's time.
  const timeoutMs = Math.max(client.policy.requestTimeoutMs, common.downloadTimeoutMs);
  const send = (path: string, init: { json?: unknown; body?: FormData }) =>
    client.request(path, { ...init, signal: scope.signal, deadline: scope.deadline, retry: 'safe', timeoutMs, headers: { accept: 'audio/*' } });
  let res;
  switch (op) {
    case 'tts': {
      const language = str(input.language_code);
      res = await send(`text-to-speech/${voiceId(input)}?${outputFormat(options)}`, {
        json: defined({
          text: String(input.text ?? ''),
          model_id: stringOption(options, 'model', 'elevenlabs'),
          voice_settings: voiceSettings(input),
          language_code: language && language !== 'auto' ? language : undefined,
          seed: num(input.seed),
          previous_text: str(input.previous_text),
          next_text: str(input.next_text),
          apply_text_normalization: str(input.apply_text_normalization),
          // Only meaningful (and only accepted) for Japanese.
          apply_language_text_normalization: input.apply_language_text_normalization === true ? true : undefined,
        }),
      });
      break;
    }
    case 'sfx':
      res = await send(`sound-generation?${outputFormat(options)}`, {
        json: defined({
          text: String(input.text ?? ''),
          model_id: str(options.model),
          duration_seconds: num(input.duration),
          prompt_influence: num(input.promptInfluence),
          loop: bool(input.loop),
        }),
      });
      break;
    case 'music':
      res = await send(`music?${outputFormat(options)}`, { json: musicBody(input, options) });
      break;
    case 'isolation': {
      const audio = await requiredMedia(input, 'audioUrl', ctx, 'avmedia');
      const form = new FormData();
      form.set('audio', ...blobPart(audio, 'audio'));
      res = await send('audio-isolation', { body: form });
      break;
    }
    case 'sts': {
      const audio = await requiredMedia(input, 'audioUrl', ctx, 'avmedia');
      const form = new FormData();
      form.set('audio', ...blobPart(audio, 'audio'));
      form.set('model_id', str(input.model_id) ?? stringOption(options, 'model', 'elevenlabs'));
      form.set('voice_settings', JSON.stringify(voiceSettings(input)));
      if (bool(input.remove_background_noise) !== undefined) form.set('remove_background_noise', String(input.remove_background_noise));
      res = await send(`speech-to-speech/${voiceId(input)}?${outputFormat(options)}`, { body: form });
      break;
    }
  }
  return expectMedia(res.body, ['audio'], op === 'music' ? 'music' : op === 'sfx' ? 'sound' : 'speech', 'ElevenLabs');
}

/**
 * The music request: a prompt and a length, or a composition plan (the hosted form holds at most one,
 * with styles as comma-separated text and lyrics one line each), which ElevenLabs takes instead of both.
 */
export function musicBody(input: Record<string, unknown>, options: Record<string, unknown>): Record<string, unknown> {
  const plan = Array.isArray(input.composition_plan) ? (input.composition_plan[0] as Record<string, unknown> | undefined) : undefined;
  const list = (v: unknown, sep: RegExp) => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? v.split(sep).map((x) => x.trim()).filter(Boolean) : []);
  const sections = plan && Array.isArray(plan.sections) ? (plan.sections as Array<Record<string, unknown>>) : [];
  const common = defined({ model_id: str(options.model), force_instrumental: bool(input.force_instrumental), sign_with_c2pa: input.sign_with_c2pa === true ? true : undefined });
  if (sections.length > 0) {
    return {
      ...common,
      force_instrumental: undefined, // only allowed with a prompt
      composition_plan: {
        positive_global_styles: list(plan!.positive_global_styles, /,/),
        negative_global_styles: list(plan!.negative_global_styles, /,/),
        sections: sections.map((x) => ({
          section_name: String(x.section_name ?? ''),
          positive_local_styles: list(x.positive_local_styles, /,/),
          negative_local_styles: list(x.negative_local_styles, /,/),
          duration_ms: num(x.duration_ms) ?? 15000,
          lines: list(x.lines, /\r?\n/),
        })),
      },
    };
  }
  const prompt = str(input.prompt);
  if (!prompt) throw new EngineInputError('give a prompt or a composition plan');
  const seconds = num(input.duration);
  return { ...common, prompt, ...(seconds !== undefined ? { music_length_ms: Math.round(seconds * 1000) } : {}) };
}

async function dub(client: ProviderClient, req: ExecuteRequest, ctx: EngineContext, scope: RunScope, common: ResolvedCommon) {
  const { input } = req;
  const targetName = str(input.targetLanguage) ?? 'English';
  const target = DUBBING_LANGUAGES[targetName] ?? (/^[a-z]{2,3}$/.test(targetName) ? targetName : undefined);
  if (!target) throw new EngineInputError(`targetLanguage "${targetName}" is not a language ElevenLabs dubs into`);
  const sourceName = str(input.sourceLanguage);
  const source = !sourceName || sourceName === 'Auto-detect' ? 'auto' : DUBBING_LANGUAGES[sourceName] ?? sourceName;
  const media = await requiredMedia(input, 'audioUrl', ctx, 'avmedia');
  const form = new FormData();
  form.set('file', ...blobPart(media, 'source'));
  form.set('target_lang', target);
  form.set('source_lang', source);
  form.set('name', `atelier ${req.subModelId}`);
  const created = (await client.request('dubbing', { body: form, signal: scope.signal, deadline: scope.deadline, retry: 'safe' })).json<Dubbing>();
  const id = str(created.dubbing_id);
  if (!id || !/^[\w-]+$/.test(id)) throw new EngineError('ElevenLabs accepted the dubbing but sent no dubbing_id');
  ctx.log.info('elevenlabs dubbing created', { dubbingId: id });
  const job: RemoteJob<void> = {
    label: `ElevenLabs dubbing ${id}`,
    async poll(signal): Promise<PollResult<void>> {
      const d = (await client.request(`dubbing/${id}`, { signal, deadline: scope.deadline })).json<Dubbing>();
      if (d.status === 'dubbed') return { done: true, value: undefined };
      if (d.status === 'failed') throw new EngineError(`ElevenLabs dubbing ${id} failed: ${client.scrub(d.error || 'no reason given')}`);
      if (d.status === 'dubbing' || d.status === 'cloning' || d.status === 'queued' || d.status === 'processing') return { done: false, progress: 0.3, message: 'dubbing on ElevenLabs' };
      throw new EngineError(`ElevenLabs reported an unknown dubbing status "${String(d.status)}"`);
    },
    async cancel(signal) {
      await client.request(`dubbing/${id}`, { method: 'DELETE', signal, retry: false, accept: [404] });
    },
  };
  await waitForJob(job, scope, ctx, common);
  ctx.progress(0.9, 'downloading the dubbed file');
  const res = await client.request(`dubbing/${id}/audio/${target}`, { signal: scope.signal, deadline: scope.deadline, headers: { accept: 'audio/*, video/*' }, timeoutMs: common.downloadTimeoutMs });
  // A video source is dubbed into a video; an audio source into audio.
  return expectMedia(res.body, media.contentType.startsWith('video/') ? ['video', 'audio'] : ['audio'], 'dubbed', 'ElevenLabs');
}
