import type { Availability, Engine, EngineContext, EngineOutputs, ExecuteRequest, FileOutput, Media } from '../types.js';
import { EngineError, EngineInputError } from '../types.js';
import { ProviderClient } from './http.js';
import { isRecord, resolveMediaFields, stringOption } from './inputs.js';
import { downloadOutput, fileOutput } from './outputs.js';
import { runScope, type RunScope } from './signals.js';
import { resolveCommon, type RemoteCommonSettings, type ResolvedCommon } from './settings.js';
import { sseData } from './sse.js';
import { unconfiguredEngine } from './job.js';
import { fetchNameList, listSummary, openAIModelIds, type BindingAvailability, type ListResult } from './servedModels.js';

/**
 * OpenAI's API and the servers that speak it (Ollama, vLLM, llama.cpp server, LM Studio): chat
 * completions (streamed), image generation and edits, speech, transcription. A binding picks one with
 * `options.operation` and names the provider's model in `options.model`; `options.params` adds fixed
 * request fields; `options.baseUrl` sends it to another OpenAI-compatible server (without the key).
 */
export interface OpenAISettings extends RemoteCommonSettings {
  /** e.g. https://api.openai.com/v1 or http://localhost:11434/v1 (Ollama). */
  baseUrl?: string;
  /** Optional for local servers that need none. */
  apiKey?: string;
}

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
const REQUIREMENTS = ['OPENAI_API_KEY (api.openai.com), or OPENAI_BASE_URL for an OpenAI-compatible server such as Ollama or vLLM'];

type Operation = 'chat' | 'image' | 'image-edit' | 'speech' | 'transcription';
const OPERATIONS: Operation[] = ['chat', 'image', 'image-edit', 'speech', 'transcription'];

export function createOpenAIEngine(s: OpenAISettings): Engine & Partial<BindingAvailability> {
  if (!s.apiKey && !s.baseUrl) {
    return unconfiguredEngine('openai', REQUIREMENTS, 'set OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible server (Ollama, vLLM, llama.cpp)');
  }
  const common = resolveCommon(s);
  const client = clientFor(s.baseUrl || OPENAI_DEFAULT_BASE_URL, s.apiKey, s);
  // A binding may name its own server (an operator's Ollama beside api.openai.com). It gets no API key:
  // the configured key belongs to the configured server and must not travel anywhere else.
  const others = new Map<string, ProviderClient>();
  const clientOf = (options: Record<string, unknown>): ProviderClient => {
    const url = options.baseUrl;
    if (url === undefined || url === s.baseUrl) return client;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new EngineError('openai binding: options.baseUrl must be an http(s) URL');
    let c = others.get(url);
    if (!c) others.set(url, (c = clientFor(url, undefined, s)));
    return c;
  };

  // What the configured server serves, from its own GET /models, asked once at start.
  let served: ListResult | undefined;
  let listing: Promise<Availability> | undefined;
  return {
    id: 'openai',
    requirements: REQUIREMENTS,
    availability() {
      listing ??= (async () => {
        served = await fetchNameList(client, 'models', openAIModelIds);
        return 'unavailable' in served ? { available: false, reason: served.unavailable } : { available: true };
      })();
      return listing;
    },
    bindingAvailability(options) {
      // Bindings to another server (options.baseUrl) are not checked here: only the configured server was asked.
      if (!served || !('names' in served) || (options.baseUrl !== undefined && options.baseUrl !== s.baseUrl)) return { available: true };
      const model = options.model;
      if (typeof model !== 'string' || served.names.has(model)) return { available: true };
      return {
        available: false,
        reason: `${client.cfg.label} does not serve "${model}" (its GET /models lists ${listSummary(served.names)}); map this model to one it serves in atelier.models.json under "providerModels"`,
      };
    },
    async execute(req, ctx) {
      const op = (req.options.operation ?? 'chat') as Operation;
      if (!OPERATIONS.includes(op)) throw new EngineError(`openai binding has unknown operation "${String(op)}" (one of ${OPERATIONS.join(', ')})`);
      const client = clientOf(req.options);
      const scope = runScope(ctx);
      try {
        switch (op) {
          case 'chat': return await chat(client, req, ctx, scope);
          case 'image': return await images(client, common, req, ctx, scope, false);
          case 'image-edit': return await images(client, common, req, ctx, scope, true);
          case 'speech': return await speech(client, req, scope);
          case 'transcription': return await transcription(client, req, ctx, scope);
        }
      } catch (err) {
        if (scope.stopped()) throw scope.stopError(client.cfg.label);
        throw err;
      } finally {
        scope.dispose();
      }
    },
  };
}

function clientFor(baseUrl: string, apiKey: string | undefined, s: OpenAISettings): ProviderClient {
  const host = new URL(baseUrl).host;
  return new ProviderClient({
    label: host === 'api.openai.com' ? 'OpenAI' : `OpenAI-compatible server (${host})`,
    baseUrl,
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    secrets: apiKey ? [apiKey] : [],
    credentialHint: 'OPENAI_API_KEY',
    retry: s.retry,
  });
}

const params = (o: Record<string, unknown>) => (isRecord(o.params) ? o.params : {});
const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

async function chat(client: ProviderClient, req: ExecuteRequest, ctx: EngineContext, scope: RunScope): Promise<EngineOutputs> {
  const { input, options } = req;
  const model = stringOption(options, 'model', 'openai');
  const prompt = String(input.prompt ?? input.text ?? '');
  const media = await resolveMediaFields({ image_url: input.image_url, image_urls: input.image_urls }, ctx);
  const images = [media.image_url, ...(Array.isArray(media.image_urls) ? media.image_urls : [])].filter((x): x is string => typeof x === 'string' && x !== '');
  const messages: Array<{ role: string; content: string | ContentPart[] }> = [];
  if (typeof input.system === 'string' && input.system) messages.push({ role: 'system', content: input.system });
  messages.push({
    role: 'user',
    content: images.length ? [{ type: 'text', text: prompt }, ...images.map((url): ContentPart => ({ type: 'image_url', image_url: { url } }))] : prompt,
  });
  const maxTokens = num(input.max_tokens);
  const stream = options.stream !== false;
  // Newer OpenAI models take max_completion_tokens; compatible servers still read max_tokens.
  const maxParam = options.maxTokensParam === 'max_completion_tokens' ? 'max_completion_tokens' : 'max_tokens';
  const body: Record<string, unknown> = {
    model,
    messages,
    stream,
    ...(maxTokens !== undefined ? { [maxParam]: maxTokens } : {}),
    ...(num(input.temperature) !== undefined ? { temperature: input.temperature } : {}),
    ...(num(input.seed) !== undefined ? { seed: input.seed } : {}),
    ...params(options),
  };

  if (!stream) {
    const res = await client.request('chat/completions', { json: body, signal: scope.signal, deadline: scope.deadline });
    const j = res.json<{ choices?: Array<{ message?: { content?: string | null } }> }>();
    const text = j.choices?.[0]?.message?.content;
    if (typeof text !== 'string') throw new EngineError(`${client.cfg.label} returned no message`);
    return { output: { kind: 'text', text } };
  }

  const res = await client.stream('chat/completions', { json: body, signal: scope.signal, deadline: scope.deadline, headers: { accept: 'text/event-stream' } });
  if (!res.body) throw new EngineError(`${client.cfg.label} sent an empty stream`);
  let text = '';
  let chunks = 0;
  let finished = false;
  let finish: string | undefined;
  for await (const data of sseData(res.body)) {
    if (data === '[DONE]') {
      finished = true;
      break;
    }
    let j: { choices?: Array<{ delta?: { content?: string | null }; finish_reason?: string | null }>; error?: { message?: string } | string };
    try {
      j = JSON.parse(data);
    } catch {
      throw new EngineError(`${client.cfg.label} sent an unreadable stream event: ${data.slice(0, 120)}`);
    }
    if (j.error) throw new EngineError(`${client.cfg.label} failed mid-answer: ${client.scrub(typeof j.error === 'string' ? j.error : (j.error.message ?? 'unknown error'))}`, true);
    const c = j.choices?.[0];
    if (c?.delta?.content) {
      text += c.delta.content;
      chunks++;
      // Each chunk is about one token: progress against the token budget, reported every few chunks.
      if (chunks % 8 === 0) ctx.progress(maxTokens ? Math.min(0.99, chunks / maxTokens) : 0.5, `${chunks} tokens`);
    }
    if (c?.finish_reason) finish = c.finish_reason;
  }
  // Timers can run late on a busy machine: an answer that ended after the run's deadline is a time-out.
  if (scope.timedOut()) throw scope.stopError('the answer');
  if (!finished && !finish) throw new EngineError(`${client.cfg.label} closed the stream before the answer was complete`, true);
  if (finish === 'content_filter') throw new EngineInputError(`${client.cfg.label} stopped the answer: content filter`);
  ctx.progress(1, finish === 'length' ? 'stopped at max_tokens' : 'done');
  return { output: { kind: 'text', text } };
}

interface ImageData { b64_json?: string; url?: string; revised_prompt?: string }

async function images(client: ProviderClient, common: ResolvedCommon, req: ExecuteRequest, ctx: EngineContext, scope: RunScope, edit: boolean): Promise<EngineOutputs> {
  const { input, options } = req;
  const model = stringOption(options, 'model', 'openai');
  const n = num(input.num_images) ?? num(input.n) ?? 1;
  const size = typeof input.size === 'string' ? input.size : typeof options.size === 'string' ? options.size : undefined;
  const quality = typeof input.quality === 'string' ? input.quality : undefined;
  let res;
  if (!edit) {
    const body = { model, prompt: String(input.prompt ?? ''), n, ...(size ? { size } : {}), ...(quality ? { quality } : {}), ...params(options) };
    res = await client.request('images/generations', { json: body, signal: scope.signal, deadline: scope.deadline });
  } else {
    const form = new FormData();
    form.set('model', model);
    form.set('prompt', String(input.prompt ?? ''));
    form.set('n', String(n));
    if (size) form.set('size', size);
    if (quality) form.set('quality', quality);
    for (const [k, v] of Object.entries(params(options))) form.set(k, String(v));
    const urls = [input.image_url, ...(Array.isArray(input.image_urls) ? input.image_urls : [])].filter((u): u is string => typeof u === 'string' && u !== '');
    if (urls.length === 0) throw new EngineInputError('image editing needs image_url or image_urls');
    for (const [i, u] of urls.entries()) {
      const m = await ctx.fetchMedia(u, { accept: 'image' });
      form.append(urls.length > 1 ? 'image[]' : 'image', blobOf(m), `image-${i + 1}.${m.contentType.split('/')[1]}`);
    }
    res = await client.request('images/edits', { body: form, signal: scope.signal, deadline: scope.deadline });
  }
  const data = res.json<{ data?: ImageData[] }>().data ?? [];
  if (data.length === 0) throw new EngineError(`${client.cfg.label} returned no image`);
  const files: FileOutput[] = [];
  for (const [i, d] of data.entries()) {
    const base = data.length > 1 ? `image-${i + 1}` : 'image';
    if (d.b64_json) files.push(fileOutput(Buffer.from(d.b64_json, 'base64'), base));
    else if (d.url) files.push(fileOutput(await downloadOutput(d.url, common, scope.signal, client.cfg.label), base));
    else throw new EngineError(`${client.cfg.label} returned an image entry with neither b64_json nor url`);
    ctx.progress((i + 1) / data.length);
  }
  return { result: files };
}

async function speech(client: ProviderClient, req: ExecuteRequest, scope: RunScope): Promise<EngineOutputs> {
  const { input, options } = req;
  const body = {
    model: stringOption(options, 'model', 'openai'),
    input: String(input.text ?? input.prompt ?? ''),
    voice: (input.voice as string | undefined) ?? (options.voice as string | undefined) ?? 'alloy',
    response_format: (input.format as string | undefined) ?? (options.format as string | undefined) ?? 'mp3',
    ...(num(input.speed) !== undefined ? { speed: input.speed } : {}),
    ...(typeof input.instructions === 'string' && input.instructions ? { instructions: input.instructions } : {}),
    ...params(options),
  };
  const res = await client.request('audio/speech', { json: body, signal: scope.signal, deadline: scope.deadline, headers: { accept: 'audio/*' } });
  const file = fileOutput(res.body, 'speech');
  if (!file.contentType.startsWith('audio/')) throw new EngineError(`${client.cfg.label} answered speech with something that is not audio (${file.contentType})`);
  return { result: [file] };
}

async function transcription(client: ProviderClient, req: ExecuteRequest, ctx: EngineContext, scope: RunScope): Promise<EngineOutputs> {
  const { input, options } = req;
  if (typeof input.audio_url !== 'string') throw new EngineInputError('transcription needs audio_url');
  const audio = await ctx.fetchMedia(input.audio_url, { accept: 'avmedia' });
  const form = new FormData();
  form.set('model', stringOption(options, 'model', 'openai'));
  form.set('file', blobOf(audio), `audio.${audio.contentType.split('/')[1]}`);
  form.set('response_format', 'json');
  if (typeof input.language === 'string' && input.language && input.language !== 'auto') form.set('language', input.language);
  if (typeof input.prompt === 'string' && input.prompt) form.set('prompt', input.prompt);
  for (const [k, v] of Object.entries(params(options))) form.set(k, String(v));
  const res = await client.request('audio/transcriptions', { body: form, signal: scope.signal, deadline: scope.deadline });
  const text = res.json<{ text?: string }>().text;
  if (typeof text !== 'string') throw new EngineError(`${client.cfg.label} returned no transcript`);
  return { output: { kind: 'text', text } };
}

function blobOf(m: Media): Blob {
  return new Blob([new Uint8Array(m.bytes)], { type: m.contentType });
}
