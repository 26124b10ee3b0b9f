import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createOpenAIEngine, type OpenAISettings } from '../../../../src/engines/remote/openai.js';
import { EngineError, EngineInputError, type FileOutput } from '../../../../src/engines/types.js';
import { dataUrl, testContext } from '../../../helpers/engineContext.js';
import { makePng, makeWav } from '../../../helpers/providers/media.js';
import { startOpenAIFake, type OpenAIFake } from '../../../helpers/providers/openai.js';

const KEY = 'sk-test-0123456789abcdef';
let fake: OpenAIFake;
before(async () => {
  fake = await startOpenAIFake({ apiKey: KEY });
});
after(() => fake.close());

const fast = { retries: 3, baseDelayMs: 5, maxDelayMs: 3000, requestTimeoutMs: 2000 };
const engine = (o: Partial<OpenAISettings> = {}) => createOpenAIEngine({ baseUrl: `${fake.url}/v1`, apiKey: KEY, allowPrivate: true, retry: fast, ...o });
const run = (input: Record<string, unknown>, options: Record<string, unknown>, o: Partial<OpenAISettings> = {}, ctxOpts: Parameters<typeof testContext>[0] = {}) => {
  const t = testContext(ctxOpts);
  after(t.cleanup);
  return { t, p: engine(o).execute({ nodeType: 'x', subModelId: 'x', input, options }, t.ctx) };
};

test('unconfigured: unavailable with a reason an operator can act on', async () => {
  const e = createOpenAIEngine({});
  assert.equal(e.id, 'openai');
  const a = await e.availability();
  assert.equal(a.available, false);
  assert.match(a.reason!, /set OPENAI_API_KEY, or OPENAI_BASE_URL/);
  await assert.rejects(e.execute({ nodeType: 'x', subModelId: 'x', input: {}, options: {} }, testContext().ctx), EngineError);
  // a local server without a key is configured, and available once it answers its model list (issue 19)
  const local = await startOpenAIFake({ models: ['llama3.2'] });
  try {
    assert.equal((await createOpenAIEngine({ baseUrl: `${local.url}/v1` }).availability()).available, true);
  } finally {
    await local.close();
  }
  // one that does not answer is unavailable, saying so
  const down = await createOpenAIEngine({ baseUrl: 'http://127.0.0.1:9/v1' }).availability();
  assert.equal(down.available, false);
  assert.match(down.reason!, /GET \/models failed/);
});

test('chat: streams SSE chunks to the end, with system, images and max_tokens sent', async () => {
  const png = makePng();
  const { t, p } = run(
    { prompt: 'Describe this', system: 'Be brief', max_tokens: 100, temperature: 0.2, image_urls: [dataUrl(png, 'image/png')] },
    { operation: 'chat', model: 'gpt-test' },
  );
  const out = await p;
  assert.deepEqual(out.output, { kind: 'text', text: 'Hello from the fake model.' });
  const sent = fake.lastChat;
  assert.equal(sent.stream, true);
  assert.equal(sent.max_tokens, 100);
  assert.equal(sent.temperature, 0.2);
  assert.deepEqual(sent.messages[0], { role: 'system', content: 'Be brief' });
  assert.equal(sent.messages[1].content[0].text, 'Describe this');
  assert.equal(sent.messages[1].content[1].image_url.url, `data:image/png;base64,${png.toString('base64')}`);
  assert.deepEqual(t.progress.at(-1), [1, 'done']);
});

test('chat: max_tokens stops early (finish_reason length); non-streaming mode; max_completion_tokens', async () => {
  const a = await run({ prompt: 'hi', max_tokens: 2 }, { operation: 'chat', model: 'gpt-test' }).p;
  assert.deepEqual(a.output, { kind: 'text', text: 'Hello from' });
  const b = await run({ prompt: 'hi' }, { operation: 'chat', model: 'gpt-test', stream: false }).p;
  assert.deepEqual(b.output, { kind: 'text', text: 'Hello from the fake model.' });
  await run({ prompt: 'hi', max_tokens: 50 }, { operation: 'chat', model: 'gpt-test', maxTokensParam: 'max_completion_tokens' }).p;
  // Not api.openai.com: max_tokens too, which Ollama and llama.cpp read (issue 28).
  assert.equal(fake.lastChat.max_completion_tokens, 50);
  assert.equal(fake.lastChat.max_tokens, 50);
});

test('images: b64_json and url answers both become sniffed PNG files', async () => {
  const a = await run({ prompt: 'a red square', num_images: 2 }, { operation: 'image', model: 'gpt-image-test' }).p;
  const files = a.result as FileOutput[];
  assert.equal(files.length, 2);
  assert.equal(files[0]!.contentType, 'image/png');
  assert.deepEqual(files[1]!.data, makePng(9, 8, [10, 100, 200]));
  assert.equal(files[0]!.filename, 'image-1.png');
  const b = await run({ prompt: 'a red square' }, { operation: 'image', model: 'gpt-image-test', params: { response_format: 'url' } }).p;
  assert.deepEqual((b.result as FileOutput[])[0]!.data, makePng(8, 8, [0, 100, 200]));
});

test('images: a url output on an internal address is refused unless private URLs are allowed', async () => {
  await assert.rejects(
    run({ prompt: 'x' }, { operation: 'image', model: 'gpt-image-test', params: { response_format: 'url' } }, { allowPrivate: false }).p,
    (e: Error) => e instanceof EngineError && /cannot download the .* output .*(plain http URLs are not allowed|loopback)/.test(e.message),
  );
});

test('image edits: multipart with the input image', async () => {
  const png = makePng(4, 4);
  const out = await run({ prompt: 'make it blue', image_url: dataUrl(png, 'image/png') }, { operation: 'image-edit', model: 'gpt-image-test' }).p;
  assert.equal((out.result as FileOutput[])[0]!.contentType, 'image/png');
  const sent = fake.lastForm!.get('image') as Blob;
  assert.deepEqual(Buffer.from(await sent.arrayBuffer()), png);
  assert.equal(fake.lastForm!.get('prompt'), 'make it blue');
});

test('speech: audio bytes, typed by sniffing', async () => {
  const wav = await run({ text: 'Hello there', voice: 'nova' }, { operation: 'speech', model: 'tts-test', format: 'wav' }).p;
  const f = (wav.result as FileOutput[])[0]!;
  assert.equal(f.contentType, 'audio/wav');
  assert.equal(f.filename, 'speech.wav');
  const mp3 = await run({ text: 'Hello there' }, { operation: 'speech', model: 'tts-test' }).p;
  assert.equal((mp3.result as FileOutput[])[0]!.contentType, 'audio/mpeg');
});

test('transcription: multipart upload, text out', async () => {
  const wav = makeWav(0.1);
  const out = await run({ audio_url: dataUrl(wav, 'audio/wav'), language: 'en' }, { operation: 'transcription', model: 'whisper-test' }).p;
  assert.deepEqual(out.output, { kind: 'text', text: `transcribed ${wav.length} bytes in en` });
  assert.equal(fake.lastForm!.get('response_format'), 'json');
});

test('retries 429 (honouring Retry-After) and 5xx, then succeeds', async () => {
  const before = fake.callsTo('POST', /chat/).length;
  fake.inject('POST', /chat\/completions/, { status: 429, headers: { 'retry-after': '0' }, json: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } } });
  fake.inject('POST', /chat\/completions/, { status: 503, json: { error: { message: 'The server is overloaded', type: 'server_error' } } });
  const out = await run({ prompt: 'hi' }, { operation: 'chat', model: 'gpt-test' }).p;
  assert.equal((out.output as { text: string }).text, 'Hello from the fake model.');
  assert.equal(fake.callsTo('POST', /chat/).length - before, 3);

  // A Retry-After within the policy's limit is waited for, then retried (the wait's length: plumbing.test.ts waitBeforeRetry).
  const speechBefore = fake.callsTo('POST', /audio\/speech/).length;
  fake.inject('POST', /audio\/speech/, { status: 429, headers: { 'retry-after': '1' }, json: { error: { message: 'slow down', type: 'requests' } } });
  await run({ text: 'x' }, { operation: 'speech', model: 'tts-test' }).p;
  assert.equal(fake.callsTo('POST', /audio\/speech/).length - speechBefore, 2);
});

test('gives up after the retries with a clear, retryable error; a Retry-After beyond the limit fails at once', async () => {
  for (let i = 0; i < 4; i++) fake.inject('POST', /images\/generations/, { status: 502, body: '<html>bad gateway</html>' });
  await assert.rejects(run({ prompt: 'x' }, { operation: 'image', model: 'gpt-image-test' }).p, (e: Error) => {
    assert.ok(e instanceof EngineError);
    assert.equal(e.message, 'OpenAI-compatible server (127.0.0.1:' + new URL(fake.url).port + ') failed (HTTP 502) (gave up after 4 attempts)');
    assert.equal(e.retryable, true);
    return true;
  });
  fake.inject('POST', /images\/generations/, { status: 429, headers: { 'retry-after': '3600' }, json: { error: { message: 'quota', type: 'insufficient_quota' } } });
  const imagesBefore = fake.callsTo('POST', /images\/generations/).length;
  await assert.rejects(run({ prompt: 'x' }, { operation: 'image', model: 'gpt-image-test' }).p, /rate limiting requests \(HTTP 429\): quota \(it asks to retry after 3600 s\)$/);
  assert.equal(fake.callsTo('POST', /images\/generations/).length - imagesBefore, 1, 'failed at once, without a retry');
});

test('per-request time-out, then retry', async () => {
  fake.inject('POST', /images\/generations/, { hang: true });
  const out = await run({ prompt: 'x' }, { operation: 'image', model: 'gpt-image-test' }, { retry: { ...fast, requestTimeoutMs: 150 } }).p;
  assert.equal((out.result as FileOutput[]).length, 1);
  fake.inject('POST', /images\/generations/, { hang: true }, { hang: true });
  await assert.rejects(
    run({ prompt: 'x' }, { operation: 'image', model: 'gpt-image-test' }, { retry: { ...fast, retries: 1, requestTimeoutMs: 100 } }).p,
    /did not answer within 100 ms/,
  );
});

test('cancel mid-stream stops reading and fails with the cancel reason', async () => {
  const slow = await startOpenAIFake({ apiKey: KEY, gapMs: 200 });
  after(() => slow.close());
  const ctl = new AbortController();
  const t = testContext({ signal: ctl.signal });
  after(t.cleanup);
  const p = createOpenAIEngine({ baseUrl: `${slow.url}/v1`, apiKey: KEY, retry: fast }).execute({ nodeType: 'x', subModelId: 'x', input: { prompt: 'hi' }, options: { operation: 'chat', model: 'gpt-test' } }, t.ctx);
  setTimeout(() => ctl.abort(new Error('run canceled by user')), 250);
  // Had the cancel not stopped the stream, it would have read to its end and resolved.
  await assert.rejects(p, /run canceled by user/);
});

test('the run deadline ends a stream that goes on too long', async () => {
  const slow = await startOpenAIFake({ apiKey: KEY, gapMs: 300 });
  after(() => slow.close());
  const t = testContext({ timeoutMs: 400 });
  after(t.cleanup);
  await assert.rejects(
    createOpenAIEngine({ baseUrl: `${slow.url}/v1`, apiKey: KEY, retry: fast }).execute({ nodeType: 'x', subModelId: 'x', input: { prompt: 'hi' }, options: { operation: 'chat', model: 'gpt-test' } }, t.ctx),
    (e: Error) => e instanceof EngineError && /did not finish within the run's time limit/.test(e.message),
  );
});

test('provider failures map to clear errors and never show the key', async () => {
  await assert.rejects(run({ prompt: 'hi' }, { operation: 'chat', model: 'gpt-test' }, { apiKey: 'sk-wrong-key-987654321' }).p, (e: Error) => {
    assert.ok(e instanceof EngineError);
    assert.match(e.message, /refused the credentials \(HTTP 401\): Incorrect API key provided: \*\*\*\..*; check OPENAI_API_KEY/);
    assert.ok(!e.message.includes('sk-wrong-key-987654321'));
    return true;
  });
  await assert.rejects(run({ prompt: 'hi' }, { operation: 'chat', model: 'no-such-model' }).p, /not found \(HTTP 404\) for \/v1\/chat\/completions: The model `no-such-model` does not exist/);
  await assert.rejects(run({ prompt: 'forbidden thing' }, { operation: 'image', model: 'gpt-image-test' }).p, (e: Error) => e instanceof EngineInputError && /rejected the input \(HTTP 400\): Your request was rejected as a result of our safety system/.test(e.message));
  await assert.rejects(run({ prompt: 'hi' }, { operation: 'dance', model: 'gpt-test' }).p, /unknown operation "dance"/);
  await assert.rejects(run({ prompt: 'hi' }, { operation: 'chat' }).p, /missing options\.model/);
  // a stream that breaks off before [DONE]
  fake.inject('POST', /chat\/completions/, { chunks: ['data: {"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}\n\n'] });
  await assert.rejects(run({ prompt: 'hi' }, { operation: 'chat', model: 'gpt-test' }).p, /closed the stream before the answer was complete/);
  // an error event inside the stream
  fake.inject('POST', /chat\/completions/, { chunks: ['data: {"error":{"message":"model crashed"}}\n\n'] });
  await assert.rejects(run({ prompt: 'hi' }, { operation: 'chat', model: 'gpt-test' }).p, /failed mid-answer: model crashed/);
});

test('a closed port is a network error after retries', async () => {
  const gone = await startOpenAIFake();
  const port = new URL(gone.url).port;
  await gone.close();
  await assert.rejects(
    createOpenAIEngine({ baseUrl: `http://127.0.0.1:${port}/v1`, retry: { ...fast, retries: 1 } }).execute({ nodeType: 'x', subModelId: 'x', input: { prompt: 'hi' }, options: { operation: 'chat', model: 'm' } }, testContext().ctx),
    (e: Error) => e instanceof EngineError && e.retryable && e.message === `cannot reach OpenAI-compatible server (127.0.0.1:${port}) at 127.0.0.1:${port}: ECONNREFUSED (gave up after 2 attempts)`,
  );
});

test('a binding with its own baseUrl reaches that server, without the configured key', async () => {
  const ollama = await startOpenAIFake({ models: ['llama3.2'] });
  after(() => ollama.close());
  const out = await run({ prompt: 'hi' }, { operation: 'chat', model: 'llama3.2', baseUrl: `${ollama.url}/v1` }).p;
  assert.equal((out.output as { text: string }).text, 'Hello from the fake model.');
  assert.equal(ollama.calls.at(-1)!.headers.authorization, undefined);
  await assert.rejects(run({ prompt: 'hi' }, { operation: 'chat', model: 'x', baseUrl: 'file:///etc' }).p, /options\.baseUrl must be an http\(s\) URL/);
});
