import { test, after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 as Ajv } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createMediaFetcher } from '../../../../src/engines/media.js';
import { createOpenAIEngine } from '../../../../src/engines/remote/openai.js';
import { createReplicateEngine } from '../../../../src/engines/remote/replicate.js';
import { dataUrl, testContext } from '../../../helpers/engineContext.js';
import { makePng, makeWav } from '../../../helpers/providers/media.js';
import { startOpenAIFake, type OpenAIFake } from '../../../helpers/providers/openai.js';
import { startReplicateFake, SDXL_VERSION, type ReplicateFake } from '../../../helpers/providers/replicate.js';
import type { FakeRequest } from '../../../helpers/providers/server.js';
import { openAIRequestSchema } from '../../../helpers/providers/contracts/openai.js';
import { PREFER, replicateRequestSchema } from '../../../helpers/providers/contracts/replicate.js';

/**
 * Contract tests (issue 28): every request the OpenAI and Replicate adapters send, over every operation
 * they have, is validated against schemas written from the provider's published OpenAPI document
 * (test/helpers/providers/contracts/). A request to a path the document lacks fails too.
 */
const ajv = new Ajv({ allErrors: true, strict: false });
(addFormats as unknown as (a: Ajv) => void)(ajv);

async function formObject(req: FakeRequest): Promise<Record<string, unknown>> {
  const form = await new Request('http://x/', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: new Uint8Array(req.body) }).formData();
  const out: Record<string, unknown> = {};
  for (const [k, v] of form.entries()) {
    const value = typeof v === 'string' ? v : { file: true, type: v.type };
    if (k.endsWith('[]')) ((out[k] ??= []) as unknown[]).push(value);
    else out[k] = value;
  }
  return out;
}

async function check(calls: FakeRequest[], lookup: (m: string, p: string) => { schema: object; body: string; accept?: string } | undefined, skip: RegExp) {
  const problems: string[] = [];
  let checked = 0;
  for (const c of calls) {
    if (skip.test(c.path)) continue;
    const spec = lookup(c.method, c.path);
    if (!spec) {
      problems.push(`${c.method} ${c.path}: not in the document`);
      continue;
    }
    let value: unknown = {};
    if (spec.body === 'json') value = c.json();
    else if (spec.body === 'multipart') value = await formObject(c);
    else if (spec.body === 'query') value = Object.fromEntries(c.query.entries());
    const validate = ajv.compile(spec.schema);
    if (!validate(value)) problems.push(`${c.method} ${c.path}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value).slice(0, 300)}`);
    if (spec.accept && c.headers.accept !== spec.accept) problems.push(`${c.method} ${c.path}: Accept ${String(c.headers.accept)}, the document answers ${spec.accept}`);
    checked++;
  }
  return { problems, checked };
}

describe('OpenAI', () => {
  let fake: OpenAIFake;
  before(async () => {
    fake = await startOpenAIFake({ apiKey: 'sk-contract-0123456789' });
  });
  after(() => fake.close());

  test('OpenAI: every request of every operation matches the OpenAPI document', async () => {
    const e = createOpenAIEngine({ baseUrl: `${fake.url}/v1`, apiKey: 'sk-contract-0123456789', allowPrivate: true, retry: { retries: 1, baseDelayMs: 5, maxDelayMs: 50, requestTimeoutMs: 10_000 } });
    const t = testContext();
    after(t.cleanup);
    const go = (input: Record<string, unknown>, options: Record<string, unknown>) => e.execute({ nodeType: 'x', subModelId: 'x', input, options }, t.ctx);
    const png = dataUrl(makePng(), 'image/png');
    await e.availability();
    await go({ prompt: 'hi', system: 'be brief', max_tokens: 5, temperature: 0.3, seed: 1, image_urls: [png] }, { operation: 'chat', model: 'gpt-test' });
    await go({ prompt: 'hi', max_tokens: 5 }, { operation: 'chat', model: 'gpt-test', stream: false, maxTokensParam: 'max_completion_tokens' });
    await go({ prompt: 'a fox', num_images: 2, size: '1024x1024', quality: 'high' }, { operation: 'image', model: 'gpt-image-test' });
    await go({ prompt: 'a fox' }, { operation: 'image', model: 'gpt-image-test', params: { response_format: 'url' } });
    await go({ prompt: 'edit', image_url: png }, { operation: 'image-edit', model: 'gpt-image-test' });
    await go({ prompt: 'edit', image_urls: [png, png] }, { operation: 'image-edit', model: 'gpt-image-test' });
    await go({ text: 'hello', voice: 'nova', format: 'wav', speed: 1.5 }, { operation: 'speech', model: 'tts-test' });
    await go({ audio_url: dataUrl(makeWav(0.05), 'audio/wav'), language: 'en', prompt: 'names' }, { operation: 'transcription', model: 'whisper-test' });
    const { problems, checked } = await check(fake.calls, openAIRequestSchema, /^\/files\//);
    assert.deepEqual(problems, []);
    assert.ok(checked >= 9, `checked ${checked}`);
  });
});

describe('Replicate', () => {
  let fake: ReplicateFake;
  before(async () => {
    fake = await startReplicateFake('r8_contract_token_0001');
  });
  after(() => fake.close());

  test('Replicate: every request of every operation matches the OpenAPI document', async () => {
    const e = createReplicateEngine({ apiToken: 'r8_contract_token_0001', baseUrl: `${fake.url}/v1`, allowPrivate: true, pollIntervalMs: 5, maxPollIntervalMs: 20, retry: { retries: 1, baseDelayMs: 5, maxDelayMs: 50, requestTimeoutMs: 10_000 } });
    const t = testContext();
    after(t.cleanup);
    t.ctx.fetchMedia = createMediaFetcher({ allowPrivate: true, maxBytes: 50e6, timeoutMs: 30_000 });
    const go = (input: Record<string, unknown>, options: Record<string, unknown>) => e.execute({ nodeType: 'x', subModelId: 'x', input, options }, t.ctx);
    await go({ prompt: 'a fox' }, { model: 'black-forest-labs/flux-1.1-pro' });
    await go({ prompt: 'a fox', num_outputs: 2 }, { version: `stability-ai/sdxl:${SDXL_VERSION}` });
    await go({ prompt: 'quick' }, { model: 'acme/fast', wait: 30 });
    await go({ prompt: 'hi' }, { model: 'meta/meta-llama-3-8b-instruct', output: 'text' });
    // a large input goes through the files API; a lost create answer is looked up by listing
    await go({ prompt: 'large', image_url: dataUrl(Buffer.concat([makePng(), Buffer.alloc(400_000)]), 'image/png') }, { model: 'black-forest-labs/flux-1.1-pro' });
    fake.inject('POST', /^\/v1\/models\/black-forest-labs\/flux-1\.1-pro\/predictions$/, { passThrough: true, hang: true });
    await createReplicateEngine({ apiToken: 'r8_contract_token_0001', baseUrl: `${fake.url}/v1`, allowPrivate: true, pollIntervalMs: 5, maxPollIntervalMs: 20, retry: { retries: 1, baseDelayMs: 5, maxDelayMs: 50, requestTimeoutMs: 800 } })
      .execute({ nodeType: 'x', subModelId: 'x', input: { prompt: 'lost answer' }, options: { model: 'black-forest-labs/flux-1.1-pro' } }, t.ctx);
    // and a cancel
    const ctl = new AbortController();
    const tc = testContext({ signal: ctl.signal });
    after(tc.cleanup);
    const n = fake.predictions.size;
    const slow = e.execute({ nodeType: 'x', subModelId: 'x', input: { prompt: 'x' }, options: { model: 'acme/slow' } }, tc.ctx);
    while (fake.predictions.size === n) await new Promise((r) => setTimeout(r, 5));
    ctl.abort(new Error('stop'));
    await assert.rejects(slow, /stop/);
    const { problems, checked } = await check(fake.calls, replicateRequestSchema, /^\/files\//);
    assert.deepEqual(problems, []);
    for (const c of fake.calls) if (c.headers.prefer !== undefined) assert.match(String(c.headers.prefer), PREFER);
    assert.ok(fake.callsTo('POST', /^\/v1\/files$/).length >= 1 && fake.callsTo('GET', /^\/v1\/predictions$/).length >= 1 && fake.callsTo('POST', /cancel$/).length >= 1);
    assert.ok(checked >= 10, `checked ${checked}`);
  });
});
