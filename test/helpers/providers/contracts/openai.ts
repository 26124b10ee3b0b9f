/**
 * Request schemas written from OpenAI's published OpenAPI document (github.com/openai/openai-openapi,
 * openapi.yaml): field names, types, required fields and enums of the requests our adapter sends. Facts
 * only; the properties each request may carry are the document's (a field outside them is a mistake).
 */

const str = { type: 'string' };
const int = { type: 'integer' };
const nullable = (s: object) => ({ anyOf: [s, { type: 'null' }] });

const textPart = { type: 'object', required: ['type', 'text'], properties: { type: { const: 'text' }, text: str }, additionalProperties: false };
const imagePart = {
  type: 'object', required: ['type', 'image_url'], additionalProperties: false,
  properties: { type: { const: 'image_url' }, image_url: { type: 'object', required: ['url'], properties: { url: str, detail: { enum: ['auto', 'low', 'high'] } }, additionalProperties: false } },
};
const audioPart = {
  type: 'object', required: ['type', 'input_audio'], additionalProperties: false,
  properties: { type: { const: 'input_audio' }, input_audio: { type: 'object', required: ['data', 'format'], properties: { data: str, format: { enum: ['wav', 'mp3'] } } } },
};
const filePart = {
  type: 'object', required: ['type', 'file'], additionalProperties: false,
  properties: { type: { const: 'file' }, file: { type: 'object', properties: { filename: str, file_data: str, file_id: str } } },
};
const message = {
  oneOf: [
    { type: 'object', required: ['role', 'content'], properties: { role: { const: 'system' }, content: { oneOf: [str, { type: 'array', minItems: 1, items: textPart }] }, name: str } },
    { type: 'object', required: ['role', 'content'], properties: { role: { const: 'developer' }, content: { oneOf: [str, { type: 'array', minItems: 1, items: textPart }] }, name: str } },
    { type: 'object', required: ['role', 'content'], properties: { role: { const: 'user' }, content: { oneOf: [str, { type: 'array', minItems: 1, items: { oneOf: [textPart, imagePart, audioPart, filePart] } }] }, name: str } },
    { type: 'object', required: ['role'], properties: { role: { const: 'assistant' }, content: nullable(str) } },
  ],
};

const CHAT_PROPERTIES = [
  'audio', 'frequency_penalty', 'function_call', 'functions', 'logit_bias', 'logprobs', 'max_completion_tokens', 'max_tokens', 'messages', 'metadata',
  'modalities', 'model', 'moderation', 'n', 'parallel_tool_calls', 'prediction', 'presence_penalty', 'prompt_cache_key', 'prompt_cache_options', 'prompt_cache_retention',
  'reasoning_effort', 'response_format', 'safety_identifier', 'seed', 'service_tier', 'stop', 'store', 'stream', 'stream_options', 'temperature', 'tool_choice', 'tools',
  'top_logprobs', 'top_p', 'user', 'verbosity', 'web_search_options',
];

export const createChatCompletionRequest = {
  type: 'object',
  required: ['model', 'messages'],
  propertyNames: { enum: CHAT_PROPERTIES },
  properties: {
    model: str,
    messages: { type: 'array', minItems: 1, items: message },
    stream: nullable({ type: 'boolean' }),
    max_tokens: nullable(int),
    max_completion_tokens: nullable(int),
    temperature: nullable({ type: 'number', minimum: 0, maximum: 2 }),
    top_p: nullable({ type: 'number', minimum: 0, maximum: 1 }),
    frequency_penalty: nullable({ type: 'number', minimum: -2, maximum: 2 }),
    presence_penalty: nullable({ type: 'number', minimum: -2, maximum: 2 }),
    seed: nullable(int),
    stop: nullable({ oneOf: [str, { type: 'array', minItems: 1, maxItems: 4, items: str }] }),
    response_format: { type: 'object', required: ['type'], properties: { type: { enum: ['text', 'json_object', 'json_schema'] } } },
    n: nullable({ type: 'integer', minimum: 1, maximum: 128 }),
  },
};

export const createImageRequest = {
  type: 'object',
  required: ['prompt'],
  additionalProperties: false,
  properties: {
    prompt: str, model: str, n: nullable({ type: 'integer', minimum: 1, maximum: 10 }), quality: nullable(str), response_format: nullable({ enum: ['url', 'b64_json'] }),
    output_format: nullable({ enum: ['png', 'jpeg', 'webp'] }), output_compression: nullable(int), stream: nullable({ type: 'boolean' }), partial_images: nullable(int),
    size: nullable(str), moderation: nullable({ enum: ['low', 'auto'] }), background: nullable({ enum: ['transparent', 'opaque', 'auto'] }), style: nullable({ enum: ['vivid', 'natural'] }), user: str,
  },
};

/** A multipart form as { field: string | { file: true, type } }; `image[]` is the array form of `image`. */
const file = { type: 'object', required: ['file'], properties: { file: { const: true } } };
const intText = { type: 'string', pattern: '^[0-9]+$' };

export const createImageEditRequest = {
  type: 'object',
  anyOf: [{ required: ['prompt', 'image'] }, { required: ['prompt', 'image[]'] }],
  additionalProperties: false,
  properties: {
    image: file, 'image[]': { type: 'array', minItems: 1, maxItems: 16, items: file }, prompt: str, mask: file, background: { enum: ['transparent', 'opaque', 'auto'] }, model: str, n: intText,
    size: str, response_format: { enum: ['url', 'b64_json'] }, output_format: { enum: ['png', 'jpeg', 'webp'] }, output_compression: intText, user: str,
    input_fidelity: { enum: ['high', 'low'] }, stream: { enum: ['true', 'false'] }, partial_images: intText, quality: str,
  },
};

export const createSpeechRequest = {
  type: 'object',
  required: ['model', 'input', 'voice'],
  additionalProperties: false,
  properties: {
    model: str, input: { type: 'string', maxLength: 4096 }, instructions: { type: 'string', maxLength: 4096 }, voice: { oneOf: [str, { type: 'object', required: ['id'] }] },
    response_format: { enum: ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] }, speed: { type: 'number', minimum: 0.25, maximum: 4 }, stream_format: { enum: ['sse', 'audio'] },
  },
};

export const createTranscriptionRequest = {
  type: 'object',
  required: ['file', 'model'],
  additionalProperties: false,
  properties: {
    file, model: str, language: str, languages: str, keywords: str, prompt: str, response_format: { enum: ['json', 'text', 'srt', 'verbose_json', 'vtt', 'diarized_json'] },
    temperature: str, include: str, 'include[]': str, timestamp_granularities: str, 'timestamp_granularities[]': str, stream: str, chunking_strategy: str,
    known_speaker_names: str, known_speaker_references: str,
  },
};

/** The schema a request must meet, by method and path under /v1; undefined for paths the document has no body for (GET /models). */
export function openAIRequestSchema(method: string, path: string): { schema: object; body: 'json' | 'multipart' | 'none'; accept?: string } | undefined {
  const p = path.replace(/^\/v1/, '');
  if (method === 'GET' && p === '/models') return { schema: {}, body: 'none' };
  if (method === 'POST' && p === '/chat/completions') return { schema: createChatCompletionRequest, body: 'json' };
  if (method === 'POST' && p === '/images/generations') return { schema: createImageRequest, body: 'json' };
  if (method === 'POST' && p === '/images/edits') return { schema: createImageEditRequest, body: 'multipart' };
  // The document answers speech as application/octet-stream (or text/event-stream when streamed).
  if (method === 'POST' && p === '/audio/speech') return { schema: createSpeechRequest, body: 'json', accept: 'application/octet-stream' };
  if (method === 'POST' && p === '/audio/transcriptions') return { schema: createTranscriptionRequest, body: 'multipart' };
  return undefined;
}
