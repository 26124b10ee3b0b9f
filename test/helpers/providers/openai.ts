import { FakeServer, type FakeReply, type FakeRequest } from './server.js';
import { makePng, makeWav } from './media.js';

/**
 * A fake of the OpenAI HTTP API (and so of Ollama/vLLM/llama.cpp's compatible servers) under /v1:
 * chat completions (JSON or SSE chunks ending in `data: [DONE]`), image generations (b64_json, or url
 * with response_format "url") and edits (multipart), speech (audio bytes), transcriptions (multipart in,
 * `{ text }` out). Errors use OpenAI's `{ error: { message, type, param, code } }` body.
 */
export interface OpenAIFakeOptions {
  apiKey?: string;
  models?: string[];
  /** Words the chat answers with; the fake streams one word per chunk. */
  answer?: string[];
  /** Gap between stream chunks. */
  gapMs?: number;
  /**
   * Called once per streamed answer: its first word is sent only once `first` settles, its last only once
   * `last` does (a test orders the provider's tokens against what its client has seen, by order, not time).
   */
  hold?: () => { first?: Promise<unknown>; last?: Promise<unknown> };
  /** A streamed answer's first word comes this long after the request (a real model's time to first token). */
  firstTokenMs?: number;
  /**
   * Which server this is, for how it names and lists models: 'openai' (ids as given); 'ollama' (models are
   * `name:tag`, listed so in GET /v1/models and GET /api/tags, and a request naming `name` means
   * `name:latest`; chat reads `max_tokens` only); 'llama.cpp' (one model, listed as its single entry,
   * answering whatever model a request names).
   */
  flavour?: 'openai' | 'ollama' | 'llama.cpp';
}

export interface OpenAIFake extends FakeServer {
  lastChat?: any;
  lastForm?: FormData;
}

const err = (status: number, message: string, type: string, code: string | null, param: string | null = null): FakeReply => ({
  status,
  json: { error: { message, type, param, code } },
});

/** Whether an Accept header admits a media type (absent admits everything). */
export function accepts(header: string | string[] | undefined, type: string): boolean {
  if (header === undefined) return true;
  const [top] = type.split('/');
  return String(header).split(',').map((r) => r.split(';')[0]!.trim().toLowerCase()).some((r) => r === '*/*' || r === type || r === `${top}/*`);
}

async function formOf(req: FakeRequest): Promise<FormData> {
  const r = new Request('http://fake/', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: new Uint8Array(req.body) });
  return r.formData();
}

export async function startOpenAIFake(o: OpenAIFakeOptions = {}): Promise<OpenAIFake> {
  const flavour = o.flavour ?? 'openai';
  const models = o.models ?? (flavour === 'llama.cpp' ? ['/models/model.gguf'] : ['gpt-test', 'gpt-image-test', 'tts-test', 'whisper-test']);
  const answer = o.answer ?? ['Hello', ' from', ' the', ' fake', ' model', '.'];
  let imageN = 0;
  const files = new Map<string, Buffer>();
  const fake = new FakeServer(async (req) => {
    if (req.method === 'GET' && req.path.startsWith('/files/')) {
      const f = files.get(req.path);
      return f ? { headers: { 'content-type': 'image/png' }, body: f } : { status: 404, body: 'gone' };
    }
    if (o.apiKey && req.headers.authorization !== `Bearer ${o.apiKey}`) {
      // The real API masks the key; this fake echoes it whole so tests prove the adapter scrubs it.
      const got = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      return err(401, `Incorrect API key provided: ${got}. You can find your API key at https://platform.openai.com/account/api-keys.`, 'invalid_request_error', 'invalid_api_key');
    }
    const served = (model: unknown): boolean => {
      if (flavour === 'llama.cpp') return true;
      if (typeof model !== 'string') return false;
      return models.includes(flavour === 'ollama' && !model.includes(':') ? `${model}:latest` : model);
    };
    const modelCheck = (model: unknown): FakeReply | undefined =>
      served(model)
        ? undefined
        : err(404, `The model \`${String(model)}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');

    // The served models, as OpenAI, Ollama, vLLM and LM Studio list them.
    if (req.method === 'GET' && req.path === '/api/tags' && flavour === 'ollama') {
      return { json: { models: models.map((name) => ({ name, model: name, modified_at: '2026-01-01T00:00:00Z', size: 1, digest: 'sha256:0', details: { format: 'gguf', family: 'llama' } })) } };
    }
    if (req.method === 'GET' && req.path === '/v1/models') {
      return { json: { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'fake' })) } };
    }
    if (req.method === 'POST' && req.path === '/v1/chat/completions') {
      const body = req.json();
      (fake as OpenAIFake).lastChat = body;
      const bad = modelCheck(body.model);
      if (bad) return bad;
      if (!Array.isArray(body.messages) || body.messages.length === 0) return err(400, "'messages' must contain at least one message", 'invalid_request_error', null, 'messages');
      const created = Math.floor(Date.now() / 1000);
      // OpenAI reads max_completion_tokens (and the older max_tokens); Ollama and llama.cpp read max_tokens only.
      const limit = flavour === 'openai' ? (body.max_completion_tokens ?? body.max_tokens) : body.max_tokens;
      const words = limit !== undefined && limit !== null ? answer.slice(0, limit) : answer;
      const finish = words.length < answer.length ? 'length' : 'stop';
      if (!body.stream) {
        return {
          json: {
            id: 'chatcmpl-fake1', object: 'chat.completion', created, model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: words.join('') }, finish_reason: finish }],
            usage: { prompt_tokens: 10, completion_tokens: words.length, total_tokens: 10 + words.length },
          },
        };
      }
      const chunk = (delta: object, finish_reason: string | null) =>
        `data: ${JSON.stringify({ id: 'chatcmpl-fake1', object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
      // chunks[2] is the first word, chunks[1 + words.length] the last.
      const held = o.hold?.() ?? {};
      const holdBefore = [
        ...(o.firstTokenMs ? [{ chunk: 2, until: new Promise((r) => setTimeout(r, o.firstTokenMs)) }] : []),
        ...(held.first ? [{ chunk: 2, until: held.first }] : []),
        ...(held.last && words.length > 1 ? [{ chunk: 1 + words.length, until: held.last }] : []),
      ];
      return {
        chunks: [
          ': keep-alive\n\n',
          chunk({ role: 'assistant', content: '' }, null),
          ...words.map((w) => chunk({ content: w }, null)),
          chunk({}, finish),
          'data: [DONE]\n\n',
        ],
        gapMs: o.gapMs ?? 0,
        holdBefore,
      };
    }

    if (req.method === 'POST' && (req.path === '/v1/images/generations' || req.path === '/v1/images/edits')) {
      const edit = req.path.endsWith('edits');
      let model: unknown, n: number, format: unknown;
      if (edit) {
        const form = await formOf(req);
        (fake as OpenAIFake).lastForm = form;
        model = form.get('model');
        n = Number(form.get('n') ?? 1);
        format = form.get('response_format');
        if (!form.get('image') && form.getAll('image[]').length === 0) return err(400, "Missing required parameter: 'image'.", 'invalid_request_error', 'missing_required_parameter', 'image');
      } else {
        const body = req.json();
        model = body.model;
        n = body.n ?? 1;
        format = body.response_format;
        if (typeof body.prompt !== 'string' || !body.prompt) return err(400, "Missing required parameter: 'prompt'.", 'invalid_request_error', 'missing_required_parameter', 'prompt');
        if (body.prompt.includes('forbidden')) return err(400, 'Your request was rejected as a result of our safety system.', 'image_generation_user_error', 'content_policy_violation');
      }
      const bad = modelCheck(model);
      if (bad) return bad;
      const data = Array.from({ length: n }, (_, i) => {
        const png = makePng(8 + i, 8, [10 * i, 100, 200]);
        if (format === 'url') {
          const path = `/files/img-${++imageN}.png`;
          files.set(path, png);
          return { url: `${fake.url}${path}`, revised_prompt: 'a revised prompt' };
        }
        return { b64_json: png.toString('base64') };
      });
      return { json: { created: Math.floor(Date.now() / 1000), data } };
    }

    if (req.method === 'POST' && req.path === '/v1/audio/speech') {
      const body = req.json();
      const bad = modelCheck(body.model);
      if (bad) return bad;
      if (typeof body.input !== 'string' || !body.input) return err(400, "Missing required parameter: 'input'.", 'invalid_request_error', 'missing_required_parameter', 'input');
      // The document's only binary answer is application/octet-stream: a negotiating server refuses an
      // Accept that does not admit it (e.g. `audio/*`) with 406.
      if (!accepts(req.headers.accept, 'application/octet-stream')) return err(406, `Not acceptable: ${String(req.headers.accept)}`, 'invalid_request_error', null);
      if (body.response_format === 'wav') return { headers: { 'content-type': 'application/octet-stream' }, body: makeWav(0.05) };
      // An MP3 header (ID3 tag + one silent layer III frame header) is enough for the adapter to sniff.
      const mp3 = Buffer.concat([Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(413)]);
      return { headers: { 'content-type': 'application/octet-stream' }, body: mp3 };
    }

    if (req.method === 'POST' && req.path === '/v1/audio/transcriptions') {
      const form = await formOf(req);
      (fake as OpenAIFake).lastForm = form;
      const bad = modelCheck(form.get('model'));
      if (bad) return bad;
      const file = form.get('file');
      if (!(file instanceof Blob)) return err(400, "Missing required parameter: 'file'.", 'invalid_request_error', 'missing_required_parameter', 'file');
      return { json: { text: `transcribed ${file.size} bytes${form.get('language') ? ` in ${String(form.get('language'))}` : ''}` } };
    }
    return err(404, `Invalid URL (${req.method} ${req.path})`, 'invalid_request_error', null);
  }) as OpenAIFake;
  return fake.start();
}
