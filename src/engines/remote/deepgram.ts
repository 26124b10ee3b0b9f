import type { Engine, EngineOutputs, ExecuteRequest } from '../types.js';
import { EngineError, EngineInputError } from '../types.js';
import { ProviderClient } from './http.js';
import { unconfiguredEngine } from './job.js';
import { allUrls, bool, num, requiredMedia, str } from './providerInputs.js';
import { runScope } from './signals.js';
import { resolveCommon, type RemoteCommonSettings } from './settings.js';

/**
 * Deepgram's pre-recorded speech-to-text (POST https://api.deepgram.com/v1/listen, header
 * `Authorization: Token <key>`): the audio's bytes in the body with their content type, the features as
 * query parameters, and the whole answer in the response (no callback: Atelier's run is the job).
 * The answer is `{ metadata, results: { channels: [{ alternatives: [{ transcript, paragraphs, words }] }],
 * utterances?, summary? } }`.
 *
 * Binding options: operation `transcribe` (the hosted ai-transcription form: transcript as text,
 * timestamped lines or JSON) or `summarize` (a short summary, `summarize=v2`), model (e.g. `nova-3`),
 * outputKey (the output's name; default `output`).
 *
 * A transcription is paid and has no idempotency key: it is re-sent only where Deepgram cannot have
 * received it (429, connection refused).
 */
export interface DeepgramSettings extends RemoteCommonSettings {
  apiKey?: string;
  /** Default https://api.deepgram.com/v1. */
  baseUrl?: string;
}

export const DEEPGRAM_DEFAULT_BASE_URL = 'https://api.deepgram.com/v1';
const REQUIREMENTS = ['DEEPGRAM_API_KEY (optional DEEPGRAM_BASE_URL)'];

interface Word { word: string; punctuated_word?: string; start: number; end: number; speaker?: number }
interface Utterance { start: number; end: number; transcript: string; speaker?: number; channel?: number }
export interface ListenResponse {
  metadata?: { request_id?: string; duration?: number; channels?: number };
  results?: {
    channels?: Array<{ detected_language?: string; alternatives?: Array<{ transcript?: string; paragraphs?: { transcript?: string }; words?: Word[] }> }>;
    utterances?: Utterance[];
    summary?: { result?: string; short?: string };
  };
}

/** The hosted form's boolean features that Deepgram takes under the same names. */
const FLAGS = ['diarize', 'smart_format', 'punctuate', 'paragraphs', 'filler_words', 'numerals', 'measurements', 'dictation', 'profanity_filter', 'multichannel'] as const;

/** The query of a transcription, from the hosted ai-transcription inputs. Pure, for tests. */
export function transcribeQuery(input: Record<string, unknown>, model: string): URLSearchParams {
  const q = new URLSearchParams({ model });
  for (const k of FLAGS) {
    const v = bool(input[k]);
    if (v !== undefined) q.set(k, String(v));
  }
  const language = str(input.language);
  if (!language || language === 'auto' || language === 'Auto-detect language') q.set('detect_language', 'true');
  else q.set('language', language);
  for (const term of (str(input.keyterms) ?? '').split(/[\n,]/).map((t) => t.trim()).filter(Boolean)) q.append('keyterm', term);
  const redact = str(input.redact);
  if (redact && redact !== 'none') q.set('redact', redact);
  if (str(input.output_format) === 'timestamped') {
    q.set('utterances', 'true');
    const split = num(input.utterance_split);
    if (split !== undefined) q.set('utt_split', String(split));
  }
  return q;
}

const clock = (s: number) => {
  const ms = Math.round(s * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const sec = (ms % 60_000) / 1000;
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${sec.toFixed(2).padStart(5, '0')}`;
};

/** The transcript in the form the caller chose. Pure, for tests. */
export function formatTranscript(r: ListenResponse, format: string): string {
  const channels = r.results?.channels;
  if (!Array.isArray(channels) || channels.length === 0) throw new EngineError('Deepgram answered without a transcript (no results.channels)');
  if (format === 'json') return JSON.stringify(r.results);
  if (format === 'timestamped') {
    const utterances = r.results?.utterances;
    if (!Array.isArray(utterances)) throw new EngineError('Deepgram answered without the utterances asked for');
    return utterances.map((u) => `[${clock(u.start)} - ${clock(u.end)}]${u.speaker !== undefined ? ` Speaker ${u.speaker}:` : ''} ${u.transcript}`).join('\n');
  }
  const texts = channels.map((c) => {
    const alt = c.alternatives?.[0];
    if (!alt || typeof alt.transcript !== 'string') throw new EngineError('Deepgram answered a channel without a transcript');
    return (alt.paragraphs?.transcript ?? alt.transcript).trim();
  });
  return texts.length === 1 ? texts[0]! : texts.map((t, i) => `Channel ${i + 1}:\n${t}`).join('\n\n');
}

export function createDeepgramEngine(s: DeepgramSettings): Engine {
  if (!s.apiKey) return unconfiguredEngine('deepgram', REQUIREMENTS, 'set DEEPGRAM_API_KEY to run models on Deepgram');
  const common = resolveCommon(s);
  const client = new ProviderClient({
    label: 'Deepgram',
    baseUrl: s.baseUrl || DEEPGRAM_DEFAULT_BASE_URL,
    headers: { authorization: `Token ${s.apiKey}` },
    secrets: [s.apiKey],
    credentialHint: 'DEEPGRAM_API_KEY',
    retry: s.retry,
  });

  return {
    id: 'deepgram',
    requirements: REQUIREMENTS,
    availability: async () => ({ available: true }),
    async execute(req: ExecuteRequest, ctx) {
      const { input, options } = req;
      const op = options.operation === 'summarize' ? 'summarize' : 'transcribe';
      const model = str(options.model) ?? 'nova-3';
      const outputKey = str(options.outputKey) ?? 'output';
      const scope = runScope(ctx);
      try {
        let query: URLSearchParams;
        let field: string;
        if (op === 'summarize') {
          query = new URLSearchParams({ model, summarize: 'v2', punctuate: 'true', smart_format: 'true' });
          field = 'podcastUrl';
        } else {
          const mode = str(input.inputMode) ?? 'upload';
          if (mode !== 'upload') throw new EngineInputError(`inputMode "${mode}" (fetching from a social site) is not offered here: download the media and give it as audioUrl with inputMode "upload"`);
          if (allUrls(input.audioUrl).length > 1) throw new EngineInputError('audioUrl takes one file');
          query = transcribeQuery(input, model);
          field = 'audioUrl';
        }
        const media = await requiredMedia(input, field, ctx, 'avmedia');
        ctx.progress(0.1, 'transcribing on Deepgram');
        const res = await client.request(`listen?${query}`, {
          body: media.bytes,
          headers: { 'content-type': media.contentType },
          signal: scope.signal,
          deadline: scope.deadline,
          retry: 'safe',
          // The answer comes when the whole file is done: give it as long as a download.
          timeoutMs: common.downloadTimeoutMs,
        });
        const body = res.json<ListenResponse>();
        let text: string;
        if (op === 'summarize') {
          const summary = body.results?.summary;
          if (!summary || summary.result !== 'success' || typeof summary.short !== 'string') {
            throw new EngineError(`Deepgram answered without a summary${summary?.result ? ` (result: ${summary.result})` : ''}`);
          }
          text = summary.short;
        } else {
          text = formatTranscript(body, str(input.output_format) ?? 'text');
        }
        ctx.progress(1, 'done');
        return { [outputKey]: { kind: 'text', text } } satisfies EngineOutputs;
      } catch (err) {
        if (scope.stopped()) throw scope.stopError(`Deepgram ${op}`);
        throw err;
      } finally {
        scope.dispose();
      }
    },
  };
}
