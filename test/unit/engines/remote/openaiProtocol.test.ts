import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createOpenAIEngine } from '../../../../src/engines/remote/openai.js';
import { EngineError, type FileOutput } from '../../../../src/engines/types.js';
import { testContext } from '../../../helpers/engineContext.js';
import { startOpenAIFake, type OpenAIFake } from '../../../helpers/providers/openai.js';

/**
 * The OpenAI adapter against a fake that answers as OpenAI's published OpenAPI document says (issue 28,
 * provider findings 3 and 4).
 */
const KEY = 'sk-unit-0123456789abcdef';
let fake: OpenAIFake;
before(async () => {
  fake = await startOpenAIFake({ apiKey: KEY });
});
after(() => fake.close());

const fast = { retries: 1, baseDelayMs: 5, maxDelayMs: 100, requestTimeoutMs: 5000 };
const run = (input: Record<string, unknown>, options: Record<string, unknown>) => {
  const t = testContext();
  after(t.cleanup);
  return createOpenAIEngine({ baseUrl: `${fake.url}/v1`, apiKey: KEY, allowPrivate: true, retry: fast }).execute({ nodeType: 'x', subModelId: 'x', input, options }, t.ctx);
};

test('speech: asks for what the document answers (application/octet-stream), so a strictly negotiating server does not answer 406', async () => {
  const out = await run({ text: 'hello' }, { operation: 'speech', model: 'tts-test' });
  const sent = fake.callsTo('POST', /^\/v1\/audio\/speech$/).at(-1)!;
  assert.equal(sent.headers.accept, 'application/octet-stream');
  assert.equal((out.result as FileOutput[])[0]!.contentType, 'audio/mpeg');
});

test('images: a b64_json that is not an image fails the run instead of becoming a 4-byte image.bin', async () => {
  fake.inject('POST', /^\/v1\/images\/generations$/, { json: { created: 1, data: [{ b64_json: 'string' }] } });
  await assert.rejects(run({ prompt: 'a fox' }, { operation: 'image', model: 'gpt-image-test' }), (err: Error) => {
    assert.ok(err instanceof EngineError, String(err));
    assert.match(err.message, /not image/);
    return true;
  });
});

test('Ollama: a binding naming "llama3.2" is served by the "llama3.2:latest" a real Ollama lists (no tag means :latest)', async () => {
  const ollama = await startOpenAIFake({ flavour: 'ollama', models: ['llama3.2:latest', 'qwen3:8b'] });
  after(() => ollama.close());
  const e = createOpenAIEngine({ baseUrl: `${ollama.url}/v1`, allowPrivate: true, retry: fast });
  assert.equal((await e.availability()).available, true);
  assert.deepEqual(e.bindingAvailability!({ model: 'llama3.2' }), { available: true });
  assert.deepEqual(e.bindingAvailability!({ model: 'qwen3:8b' }), { available: true });
  assert.equal(e.bindingAvailability!({ model: 'qwen3' }).available, false, 'qwen3 means qwen3:latest, which is not pulled');
  const t = testContext();
  after(t.cleanup);
  const out = await e.execute({ nodeType: 'x', subModelId: 'x', input: { prompt: 'hi' }, options: { operation: 'chat', model: 'llama3.2' } }, t.ctx);
  assert.deepEqual(out.output, { kind: 'text', text: 'Hello from the fake model.' });
});

test('a binding that asks for max_completion_tokens still limits an Ollama answer: Ollama reads max_tokens', async () => {
  const ollama = await startOpenAIFake({ flavour: 'ollama', models: ['llama3.2:latest'] });
  after(() => ollama.close());
  const t = testContext();
  after(t.cleanup);
  const e = createOpenAIEngine({ baseUrl: `${ollama.url}/v1`, allowPrivate: true, retry: fast });
  const out = await e.execute({ nodeType: 'x', subModelId: 'x', input: { prompt: 'hi', max_tokens: 2 }, options: { operation: 'chat', model: 'llama3.2', maxTokensParam: 'max_completion_tokens' } }, t.ctx);
  assert.deepEqual(out.output, { kind: 'text', text: 'Hello from' });
  assert.equal(ollama.lastChat.max_tokens, 2);
});
