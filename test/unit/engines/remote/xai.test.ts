import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { createMediaFetcher } from '../../../../src/engines/media.js';
import { createXAIEngine, type XAISettings } from '../../../../src/engines/remote/xai.js';
import { remoteEnginesFromEnv } from '../../../../src/engines/remote/index.js';
import { EngineError, EngineInputError, type FileOutput } from '../../../../src/engines/types.js';
import { bindings } from '../../../../src/catalog/hosted/bindings/xai.js';
import { dataUrl, testContext } from '../../../helpers/engineContext.js';
import { startXAIFake, type XAIFake } from '../../../helpers/providers/xai.js';
import { makePng } from '../../../helpers/providers/media.js';

const KEY = 'xai-test-key-3b8d21';
let fake: XAIFake;
before(async () => {
  fake = await startXAIFake(KEY);
});
after(() => fake.close());

const fast = { retries: 2, baseDelayMs: 5, maxDelayMs: 2000, requestTimeoutMs: 5000 };
const settings = (o: Partial<XAISettings> = {}): XAISettings => ({ apiKey: KEY, baseUrl: `${fake.url}/v1`, allowPrivate: true, retry: fast, ...o });
const DEFAULTS = { aspect_ratio: '1:1', resolution: '1k', num_images: 1, output_format: 'JPEG' };

function run(subModelId: string, input: Record<string, unknown>, o: Partial<XAISettings> = {}) {
  const binding = bindings[subModelId]!;
  assert.equal(binding.engine, 'xai');
  const t = testContext();
  after(t.cleanup);
  t.ctx.fetchMedia = createMediaFetcher({ allowPrivate: true, maxBytes: 1e6, timeoutMs: 30_000 });
  return createXAIEngine(settings(o)).execute({ nodeType: 'grok_imagine_image', subModelId, input, options: binding.options ?? {} }, t.ctx);
}
const filesOf = async (p: ReturnType<typeof run>) => (await p).result as FileOutput[];

test('unconfigured: unavailable with the variable to set', async () => {
  assert.deepEqual(await createXAIEngine({}).availability(), { available: false, reason: 'set XAI_API_KEY to run models on xAI' });
  assert.equal((await remoteEnginesFromEnv({ XAI_API_KEY: 'k' }).find((e) => e.id === 'xai')!.availability()).available, true);
  assert.equal(fake.calls.length, 0);
});

test('text to image: hosted fields become the xAI request; JPEGs come back decoded, with their size', async () => {
  const files = await filesOf(run('grok-imagine-image-text', { ...DEFAULTS, prompt: 'a red fox', aspect_ratio: '16:9', resolution: '2k', num_images: 2 }));
  assert.equal(files.length, 2);
  assert.equal(files[0]!.contentType, 'image/jpeg');
  assert.equal(files[0]!.filename, 'image-1.jpg');
  assert.deepEqual([files[0]!.width, files[0]!.height], [128, 72]);
  const call = fake.calls.at(-1)!;
  assert.equal(call.path, '/v1/images/generations');
  assert.equal(call.headers.authorization, `Bearer ${KEY}`);
  assert.deepEqual(call.json(), { model: 'grok-imagine-image', prompt: 'a red fox', n: 2, response_format: 'b64_json', aspect_ratio: '16:9', resolution: '2k' });
});

test('output_format PNG or WebP re-encodes what xAI sends', async () => {
  const [png] = await filesOf(run('grok-imagine-image-text', { ...DEFAULTS, prompt: 'x', output_format: 'PNG' }));
  assert.equal(png!.contentType, 'image/png');
  assert.equal((await sharp(png!.data).metadata()).format, 'png');
  const [webp] = await filesOf(run('grok-imagine-image-text', { ...DEFAULTS, prompt: 'x', output_format: 'WebP' }));
  assert.equal(webp!.contentType, 'image/webp');
  assert.equal(webp!.filename, 'image.webp');
});

test('edit: the source images sent as data: URIs (one as image, several as images); aspect "auto" left to xAI', async () => {
  const png = makePng(8, 8);
  await filesOf(run('grok-imagine-image-edit', { ...DEFAULTS, aspect_ratio: 'auto', prompt: 'make it blue', image_urls: [dataUrl(png, 'image/png')] }));
  let body = fake.calls.at(-1)!.json();
  assert.equal(fake.calls.at(-1)!.path, '/v1/images/edits');
  assert.deepEqual(body.image, { url: `data:image/png;base64,${png.toString('base64')}` });
  assert.equal(body.aspect_ratio, undefined);
  await filesOf(run('grok-imagine-image-edit', { ...DEFAULTS, prompt: 'combine <IMAGE_0> and <IMAGE_1>', image_urls: [dataUrl(png, 'image/png'), dataUrl(makePng(4, 4), 'image/png')] }));
  body = fake.calls.at(-1)!.json();
  assert.equal(body.images.length, 2);
  assert.equal(body.image, undefined);
  const n = fake.calls.length;
  await assert.rejects(run('grok-imagine-image-edit', { ...DEFAULTS, prompt: 'x', image_urls: Array(4).fill(dataUrl(png, 'image/png')) }), (e: Error) => e instanceof EngineInputError && /at most 3 images/.test(e.message));
  await assert.rejects(run('grok-imagine-image-edit', { ...DEFAULTS, prompt: 'x', image_urls: [] }), (e: Error) => e instanceof EngineInputError);
  assert.equal(fake.calls.length, n, 'refused before anything was sent');
});

test('a wrong key (xAI answers 400) is an operator error naming XAI_API_KEY, not an input error; the key is never shown', async () => {
  await assert.rejects(run('grok-imagine-image-text', { ...DEFAULTS, prompt: 'x' }, { apiKey: 'xai-wrong-000999' }), (e: Error) => {
    assert.ok(!(e instanceof EngineInputError));
    assert.match(e.message, /xAI rejected the input \(HTTP 400\): Incorrect API key provided.*; check XAI_API_KEY$/);
    assert.ok(!e.message.includes('xai-wrong-000999'));
    return true;
  });
});

test('provider refusals and failures: invalid argument is an input error; a 5xx is not re-sent', async () => {
  fake.inject('POST', /images\/generations/, { status: 400, json: { code: 'Client specified an invalid argument', error: 'Generated image rejected by content moderation.' } });
  await assert.rejects(run('grok-imagine-image-text', { ...DEFAULTS, prompt: 'x' }), (e: Error) => e instanceof EngineInputError && /content moderation/.test(e.message));
  const n = fake.calls.length;
  fake.inject('POST', /images\/generations/, { status: 503, json: { code: 'Unavailable', error: 'Service temporarily unavailable' } });
  await assert.rejects(run('grok-imagine-image-text', { ...DEFAULTS, prompt: 'x' }), (e: Error) => e instanceof EngineError && /xAI failed \(HTTP 503\)/.test(e.message));
  assert.equal(fake.calls.length - n, 1);
});

test('an image that is not one fails the run: wrong bytes, a truncated JPEG, an empty list', async () => {
  fake.inject('POST', /images\/generations/, { json: { data: [{ b64_json: Buffer.from('<html>nope</html>').toString('base64'), mime_type: 'image/jpeg' }] } });
  await assert.rejects(run('grok-imagine-image-text', { ...DEFAULTS, prompt: 'x' }), /xAI answered with something that is not image/);
  const jpeg = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#123456' } }).jpeg().toBuffer();
  fake.inject('POST', /images\/generations/, { json: { data: [{ b64_json: jpeg.subarray(0, 20).toString('base64'), mime_type: 'image/jpeg' }] } });
  await assert.rejects(run('grok-imagine-image-text', { ...DEFAULTS, prompt: 'x', output_format: 'PNG' }), /xAI answered with an image that does not decode/);
  fake.inject('POST', /images\/generations/, { json: { data: [] } });
  await assert.rejects(run('grok-imagine-image-text', { ...DEFAULTS, prompt: 'x' }), /xAI answered without an image/);
});

test('an image given as a URL is downloaded through the outbound guard', async () => {
  fake.inject('POST', /images\/generations/, { json: { data: [{ url: `${fake.url}/files/none.jpeg`, mime_type: 'image/jpeg' }] } });
  await assert.rejects(run('grok-imagine-image-text', { ...DEFAULTS, prompt: 'x' }), /downloading the xAI output .* failed: HTTP 404/);
  fake.inject('POST', /images\/generations/, { json: { data: [{ url: `${fake.url}/files/none.jpeg`, mime_type: 'image/jpeg' }] } });
  await assert.rejects(run('grok-imagine-image-text', { ...DEFAULTS, prompt: 'x' }, { allowPrivate: false }), /cannot download the xAI output/);
});
