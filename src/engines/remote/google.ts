import { wavHeader16 } from '../local/audio/wav.js';
import type { Engine, EngineOutputs } from '../types.js';
import { EngineError, EngineInputError } from '../types.js';
import { ProviderClient, ProviderInputError } from './http.js';
import { stringOption } from './inputs.js';
import { unconfiguredEngine } from './job.js';
import { expectMedia } from './outputs.js';
import { allUrls, str } from './providerInputs.js';
import { runScope } from './signals.js';
import type { RemoteCommonSettings } from './settings.js';

/**
 * The Gemini API (https://generativelanguage.googleapis.com/v1beta, header `x-goog-api-key`), through
 * `POST /models/{model}:generateContent`:
 *
 *   speech  Gemini TTS: `generationConfig.responseModalities: ["AUDIO"]` with one prebuilt voice or a
 *           two-speaker `multiSpeakerVoiceConfig`; the answer is raw 16-bit PCM
 *           (`inlineData.mimeType: "audio/L16;codec=pcm;rate=24000"`), wrapped here into a WAV file.
 *   music   Lyria: the prompt (and optional pictures as `inlineData` parts) in, an MP3 `inlineData`
 *           part (with the lyrics as a text part) out.
 *
 * Generation is paid and carries no idempotency key: re-sent only where Google cannot have received it.
 * Binding options: operation (`speech` | `music`), model (e.g. `gemini-2.5-pro-preview-tts`, `lyria-3.5`).
 */
export interface GoogleSettings extends RemoteCommonSettings {
  apiKey?: string;
  /** Default https://generativelanguage.googleapis.com/v1beta. */
  baseUrl?: string;
}

export const GOOGLE_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';
const REQUIREMENTS = ['GEMINI_API_KEY (optional GEMINI_BASE_URL)'];
const MAX_IMAGES = 10;

interface Part { text?: string; inlineData?: { mimeType?: string; data?: string } }
interface GenerateResponse {
  candidates?: Array<{ content?: { parts?: Part[] }; finishReason?: string }>;
  promptFeedback?: { blockReason?: string };
}

/** A WAV header in front of little-endian 16-bit PCM. Pure. */
export function pcmToWav(pcm: Buffer, rate: number, channels = 1): Buffer {
  return Buffer.concat([wavHeader16(pcm.length, rate, channels), pcm]);
}

/** The TTS request from the hosted gemini-pro-tts fields (text, voice, isMultiSpeaker, speakers, styleGuide). Pure. */
export function speechRequest(input: Record<string, unknown>): Record<string, unknown> {
  const text = str(input.text);
  if (!text) throw new EngineInputError('text is required');
  const style = str(input.styleGuide)?.trim();
  let speechConfig: Record<string, unknown>;
  if (input.isMultiSpeaker === true) {
    const speakers = Array.isArray(input.speakers) ? (input.speakers as Array<Record<string, unknown>>) : [];
    if (speakers.length !== 2) throw new EngineInputError('a multi-speaker text needs exactly two speakers');
    speechConfig = {
      multiSpeakerVoiceConfig: {
        speakerVoiceConfigs: speakers.map((sp, i) => {
          const speaker = str(sp.name)?.trim();
          const voiceName = str(sp.voiceName);
          if (!speaker || !voiceName) throw new EngineInputError(`speakers[${i}] needs a name and a voiceName`);
          return { speaker, voiceConfig: { prebuiltVoiceConfig: { voiceName } } };
        }),
      },
    };
  } else {
    speechConfig = { voiceConfig: { prebuiltVoiceConfig: { voiceName: str(input.voice) ?? 'Kore' } } };
  }
  return {
    contents: [{ parts: [{ text: style ? `${style}:\n${text}` : text }] }],
    generationConfig: { responseModalities: ['AUDIO'], speechConfig },
  };
}

export function createGoogleEngine(s: GoogleSettings): Engine {
  if (!s.apiKey) return unconfiguredEngine('google', REQUIREMENTS, 'set GEMINI_API_KEY to run models on the Gemini API');
  const client = new ProviderClient({
    label: 'Gemini API',
    baseUrl: s.baseUrl || GOOGLE_DEFAULT_BASE_URL,
    headers: { 'x-goog-api-key': s.apiKey },
    secrets: [s.apiKey],
    credentialHint: 'GEMINI_API_KEY',
    retry: s.retry,
  });

  return {
    id: 'google',
    requirements: REQUIREMENTS,
    availability: async () => ({ available: true }),
    async execute(req, ctx) {
      const { input, options } = req;
      const model = stringOption(options, 'model', 'google');
      if (!/^[\w.-]+$/.test(model)) throw new EngineError(`google binding: options.model "${model}" is not a model id`);
      const op = options.operation === 'music' ? 'music' : 'speech';
      const scope = runScope(ctx);
      try {
        let body: Record<string, unknown>;
        if (op === 'speech') body = speechRequest(input);
        else {
          const prompt = str(input.prompt);
          const urls = allUrls(input.images);
          if (!prompt && urls.length === 0) throw new EngineInputError('give a prompt or at least one image');
          if (urls.length > MAX_IMAGES) throw new EngineInputError(`at most ${MAX_IMAGES} images`);
          const parts: Part[] = prompt ? [{ text: prompt }] : [];
          for (const u of urls) {
            const m = await ctx.fetchMedia(u, { accept: 'image' });
            parts.push({ inlineData: { mimeType: m.contentType, data: m.bytes.toString('base64') } });
          }
          body = { contents: [{ parts }] };
        }
        ctx.progress(0.1, op === 'speech' ? 'speaking on the Gemini API' : 'composing on the Gemini API');
        const res = await client
          .request(`models/${model}:generateContent`, { json: body, signal: scope.signal, deadline: scope.deadline, retry: 'safe', timeoutMs: Math.max(client.policy.requestTimeoutMs, 300_000) })
          .catch((err: unknown) => {
            // A bad key is answered 400 INVALID_ARGUMENT: the operator's to fix, not the caller's input.
            if (err instanceof ProviderInputError && /api key/i.test(err.message)) throw new EngineError(`${err.message}; check GEMINI_API_KEY`);
            throw err;
          });
        const answer = res.json<GenerateResponse>();
        if (answer.promptFeedback?.blockReason) throw new EngineInputError(`the Gemini API refused the prompt (${answer.promptFeedback.blockReason})`);
        const candidate = answer.candidates?.[0];
        const media = candidate?.content?.parts?.find((p) => p.inlineData?.data);
        if (!media?.inlineData?.data) {
          const why = candidate?.finishReason && candidate.finishReason !== 'STOP' ? ` (finishReason ${candidate.finishReason})` : '';
          throw new EngineError(`the Gemini API answered without audio${why}`);
        }
        const bytes = Buffer.from(media.inlineData.data, 'base64');
        const type = (media.inlineData.mimeType ?? '').toLowerCase();
        let file;
        if (/^audio\/(l16|pcm)/.test(type)) {
          const rate = Number(/rate=(\d+)/.exec(type)?.[1] ?? 24000);
          if (bytes.length === 0 || bytes.length % 2 !== 0) throw new EngineError('the Gemini API answered with PCM audio of an odd or empty length');
          file = { ...expectMedia(pcmToWav(bytes, rate), ['audio'], 'speech', 'the Gemini API'), durationSeconds: bytes.length / 2 / rate };
        } else {
          file = expectMedia(bytes, ['audio'], op === 'speech' ? 'speech' : 'music', 'the Gemini API');
        }
        ctx.progress(1, 'done');
        return { result: [file] } satisfies EngineOutputs;
      } catch (err) {
        if (scope.stopped()) throw scope.stopError(`Gemini API ${op}`);
        throw err;
      } finally {
        scope.dispose();
      }
    },
  };
}
