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
