import type { Availability, Engine, EngineContext, EngineOutputs, ExecuteRequest, FileOutput, Media } from '../types.js';
import { EngineError, EngineInputError } from '../types.js';
import { ProviderClient } from './http.js';
import { isRecord, resolveMediaFields, stringOption } from './inputs.js';
import { downloadOutput, expectMedia } from './outputs.js';
import { runScope, type RunScope } from './signals.js';
import { resolveCommon, type RemoteCommonSettings, type ResolvedCommon } from './settings.js';
import { sseData } from './sse.js';
import { unconfiguredEngine } from './job.js';
import { fetchNameList, listSummary, openAIModelIds, servesModel, type BindingAvailability, type ListResult } from './servedModels.js';

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

export const OPENROUTER_DEFAULT_BASE_URL = 'https://openrouter.ai/api/v1';
const OPENROUTER_REQUIREMENTS = ['OPENROUTER_API_KEY (optional OPENROUTER_BASE_URL, default https://openrouter.ai/api/v1)'];

/**
 * OpenRouter: the same OpenAI-compatible protocol, configured on its own (OPENROUTER_API_KEY,
 * OPENROUTER_BASE_URL) under engine id `openrouter`, so the hosted catalog's LLMs (provider type
 * `openrouter`) and OpenAI's own models can both be configured at once.
 */
export function createOpenRouterEngine(s: OpenAISettings): Engine & Partial<BindingAvailability> {
  if (!s.apiKey) return unconfiguredEngine('openrouter', OPENROUTER_REQUIREMENTS, 'set OPENROUTER_API_KEY to run the hosted catalog’s language models on OpenRouter');
  return createOpenAIEngine({ ...s, baseUrl: s.baseUrl || OPENROUTER_DEFAULT_BASE_URL }, { id: 'openrouter', requirements: OPENROUTER_REQUIREMENTS, label: 'OpenRouter', credentialHint: 'OPENROUTER_API_KEY' });
}

interface Flavour { id: string; requirements: string[]; label?: string; credentialHint: string }

export function createOpenAIEngine(s: OpenAISettings, flavour: Flavour = { id: 'openai', requirements: REQUIREMENTS, credentialHint: 'OPENAI_API_KEY' }): Engine & Partial<BindingAvailability> {
  if (!s.apiKey && !s.baseUrl) {
    return unconfiguredEngine('openai', REQUIREMENTS, 'set OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible server (Ollama, vLLM, llama.cpp)');
  }
  const common = resolveCommon(s);
  const client = clientFor(s.baseUrl || OPENAI_DEFAULT_BASE_URL, s.apiKey, s, flavour);
  // A binding may name its own server (an operator's Ollama beside api.openai.com). It gets no API key:
  // the configured key belongs to the configured server and must not travel anywhere else.
  const others = new Map<string, ProviderClient>();
  const clientOf = (options: Record<string, unknown>): ProviderClient => {
    const url = options.baseUrl;
    if (url === undefined || url === s.baseUrl) return client;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new EngineError('openai binding: options.baseUrl must be an http(s) URL');
    let c = others.get(url);
    if (!c) others.set(url, (c = clientFor(url, undefined, s, flavour)));
    return c;
  };

  // What the configured server serves, from its own GET /models, asked once at start.
  let served: ListResult | undefined;
  let listing: Promise<Availability> | undefined;
  return {
    id: flavour.id,
    requirements: flavour.requirements,
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
      if (typeof model !== 'string' || servesModel(served.names, model)) return { available: true };
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

function clientFor(baseUrl: string, apiKey: string | undefined, s: OpenAISettings, flavour: Flavour): ProviderClient {
  const host = new URL(baseUrl).host;
  return new ProviderClient({
    label: flavour.label ?? (host === 'api.openai.com' ? 'OpenAI' : `OpenAI-compatible server (${host})`),
    baseUrl,
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    secrets: apiKey ? [apiKey] : [],
    credentialHint: flavour.credentialHint,
    retry: s.retry,
  });
}

const params = (o: Record<string, unknown>) => (isRecord(o.params) ? o.params : {});
const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }
  | { type: 'file'; file: { filename: string; file_data: string } }
  | { type: 'input_audio'; input_audio: { data: string; format: string } }
  | { type: 'video_url'; video_url: { url: string } };

/** Sampling inputs of the hosted LLMs that the OpenAI-compatible chat body takes under the same names. */
const HOSTED_SAMPLING = ['top_p', 'top_k', 'frequency_penalty', 'presence_penalty', 'repetition_penalty', 'min_p', 'top_a'];

/** The hosted LLM inputs beyond prompt and images: PDFs, audio and video parts, sampling, stop, JSON mode, reasoning. */
async function hostedChatExtras(input: Record<string, unknown>, ctx: EngineContext): Promise<{ parts: ContentPart[]; body: Record<string, unknown> }> {
  const parts: ContentPart[] = [];
  const urls = (v: unknown) => (Array.isArray(v) ? v.filter((u): u is string => typeof u === 'string' && u !== '') : []);
  for (const [i, u] of urls(input.file_urls).entries()) {
    const m = await ctx.fetchMedia(u, { accept: 'any' });
    parts.push({ type: 'file', file: { filename: `document-${i + 1}.pdf`, file_data: `data:${m.contentType};base64,${m.bytes.toString('base64')}` } });
  }
  for (const u of urls(input.audio_urls)) {
    const m = await ctx.fetchMedia(u, { accept: 'audio' });
    parts.push({ type: 'input_audio', input_audio: { data: m.bytes.toString('base64'), format: m.contentType.split('/')[1]?.replace('mpeg', 'mp3') ?? 'wav' } });
  }
  for (const u of urls(input.video_urls)) {
    const m = await ctx.fetchMedia(u, { accept: 'video' });
    parts.push({ type: 'video_url', video_url: { url: `data:${m.contentType};base64,${m.bytes.toString('base64')}` } });
  }
  const body: Record<string, unknown> = {};
  for (const k of HOSTED_SAMPLING) if (num(input[k]) !== undefined) body[k] = input[k];
  if (typeof input.stop === 'string' && input.stop) body.stop = input.stop.split(',').map((x) => x.trim()).filter(Boolean).slice(0, 4);
  if (input.response_format === true) body.response_format = { type: 'json_object' };
  if (input.reasoning === true) body.reasoning = { enabled: true };
  return { parts, body };
}

async function chat(client: ProviderClient, req: ExecuteRequest, ctx: EngineContext, scope: RunScope): Promise<EngineOutputs> {
  const { input, options } = req;
  const model = stringOption(options, 'model', 'openai');
  const prompt = String(input.prompt ?? input.text ?? '');
  const media = await resolveMediaFields({ image_url: input.image_url, image_urls: input.image_urls }, ctx);
  const images = [media.image_url, ...(Array.isArray(media.image_urls) ? media.image_urls : [])].filter((x): x is string => typeof x === 'string' && x !== '');
  // The hosted catalog's LLMs (binding option hostedChat) also take PDFs, audio, video and sampling inputs.
  const extras = options.hostedChat === true ? await hostedChatExtras(input, ctx) : { parts: [], body: {} };
  const messages: Array<{ role: string; content: string | ContentPart[] }> = [];
  const system = typeof input.system === 'string' && input.system ? input.system : typeof input.system_prompt === 'string' && input.system_prompt ? input.system_prompt : undefined;
  if (system) messages.push({ role: 'system', content: system });
  const parts: ContentPart[] = [...images.map((url): ContentPart => ({ type: 'image_url', image_url: { url } })), ...extras.parts];
  messages.push({ role: 'user', content: parts.length ? [{ type: 'text', text: prompt }, ...parts] : prompt });
  const maxTokens = num(input.max_tokens);
  const stream = options.stream !== false;
  const body: Record<string, unknown> = {
    model,
    messages,
    stream,
    ...(maxTokens !== undefined ? maxTokensFields(client, options, maxTokens) : {}),
    ...(num(input.temperature) !== undefined ? { temperature: input.temperature } : {}),
    ...(num(input.seed) !== undefined ? { seed: input.seed } : {}),
    ...extras.body,
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
      ctx.delta?.(c.delta.content);
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

/**
 * The token limit under the name the server reads. OpenAI's newer models take only max_completion_tokens;
 * Ollama and llama.cpp read only max_tokens (a binding mapped to an Ollama model lost its limit when sent
 * the other). OpenAI's own API gets what the binding asks; any other server gets max_tokens, and also
 * max_completion_tokens when the binding asks for it (vLLM reads it; the others ignore an unknown field).
 */
function maxTokensFields(client: ProviderClient, options: Record<string, unknown>, n: number): Record<string, number> {
  if (options.maxTokensParam !== 'max_completion_tokens') return { max_tokens: n };
  return client.base.host === 'api.openai.com' ? { max_completion_tokens: n } : { max_completion_tokens: n, max_tokens: n };
}

interface ImageData { b64_json?: string; url?: string; revised_prompt?: string }

/**
 * A binding's translation of image inputs: `valueMap` (hosted "High" → "high"), `sizeFrom` ("Custom" size from
 * width and height fields → "WxH"), `passThrough` (fields sent as they are) and `imageFields` (more input image lists).
 */
function imageInput(input: Record<string, unknown>, options: Record<string, unknown>): { input: Record<string, unknown>; extra: Record<string, unknown> } {
  const table = isRecord(options.valueMap) ? (options.valueMap as Record<string, Record<string, unknown>>) : {};
  const out: Record<string, unknown> = { ...input };
  for (const [k, map] of Object.entries(table)) {
    const v = out[k];
    if ((typeof v === 'string' || typeof v === 'number') && String(v) in map) out[k] = map[String(v)];
  }
  const sizeFrom = isRecord(options.sizeFrom) ? options.sizeFrom : undefined;
  if (sizeFrom && input.size === sizeFrom.when) {
    const w = num(input[String(sizeFrom.width)]);
    const h = num(input[String(sizeFrom.height)]);
    out.size = w !== undefined && h !== undefined ? `${w}x${h}` : undefined;
  }
  const extra: Record<string, unknown> = {};
  for (const k of Array.isArray(options.passThrough) ? (options.passThrough as string[]) : []) if (out[k] !== undefined && out[k] !== null && out[k] !== '') extra[k] = out[k];
  return { input: out, extra };
}

async function images(client: ProviderClient, common: ResolvedCommon, req: ExecuteRequest, ctx: EngineContext, scope: RunScope, edit: boolean): Promise<EngineOutputs> {
  const { options } = req;
  const { input, extra } = imageInput(req.input, options);
  const model = stringOption(options, 'model', 'openai');
  const n = num(input.num_images) ?? num(input.n) ?? 1;
  const size = typeof input.size === 'string' ? input.size : typeof options.size === 'string' ? options.size : undefined;
  const quality = typeof input.quality === 'string' ? input.quality : undefined;
  let res;
  if (!edit) {
    const body = { model, prompt: String(input.prompt ?? ''), n, ...(size ? { size } : {}), ...(quality ? { quality } : {}), ...extra, ...params(options) };
    res = await client.request('images/generations', { json: body, signal: scope.signal, deadline: scope.deadline });
  } else {
    const form = new FormData();
    form.set('model', model);
    form.set('prompt', String(input.prompt ?? ''));
    form.set('n', String(n));
    if (size) form.set('size', size);
    if (quality) form.set('quality', quality);
    for (const [k, v] of Object.entries({ ...extra, ...params(options) })) form.set(k, String(v));
    const more = (Array.isArray(options.imageFields) ? (options.imageFields as string[]) : []).flatMap((f) => (Array.isArray(input[f]) ? (input[f] as unknown[]) : [input[f]]));
    const urls = [input.image_url, ...(Array.isArray(input.image_urls) ? input.image_urls : []), ...more].filter((u): u is string => typeof u === 'string' && u !== '');
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
    // Checked by their bytes before anything is stored or charged: `b64_json: "string"` decodes to 4 bytes of nothing.
    if (d.b64_json) files.push(expectMedia(Buffer.from(d.b64_json, 'base64'), ['image'], base, client.cfg.label));
    else if (d.url) files.push(expectMedia(await downloadOutput(d.url, common, scope.signal, client.cfg.label), ['image'], base, client.cfg.label));
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
  // OpenAI's OpenAPI document answers speech as application/octet-stream: ask for exactly that (a server
  // that negotiates strictly refuses `audio/*` with 406); the bytes are then typed by sniffing.
  const res = await client.request('audio/speech', { json: body, signal: scope.signal, deadline: scope.deadline, headers: { accept: 'application/octet-stream' } });
  return { result: [expectMedia(res.body, ['audio'], 'speech', client.cfg.label)] };
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
