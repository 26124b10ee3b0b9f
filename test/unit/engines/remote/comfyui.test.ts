import { test, after, before, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createMediaFetcher } from '../../../../src/engines/media.js';
import { createComfyUIEngine, type ComfyUISettings } from '../../../../src/engines/remote/comfyui.js';
import { fillTemplate, placeholders } from '../../../../src/engines/remote/comfyuiTemplate.js';
import { EngineError, EngineInputError, type FileOutput } from '../../../../src/engines/types.js';
import { dataUrl, testContext } from '../../../helpers/engineContext.js';
import { IMG2IMG_WORKFLOW, TXT2IMG_WORKFLOW, startComfyFake, type ComfyFake } from '../../../helpers/providers/comfyui.js';
import { makePng } from '../../../helpers/providers/media.js';

let fake: ComfyFake;
before(async () => {
  fake = await startComfyFake();
});
after(() => fake.close());
beforeEach(() => {
  fake.timing = { wait: 1, run: 1 };
});

const fast = { retries: 3, baseDelayMs: 5, maxDelayMs: 3000, requestTimeoutMs: 2000 };
const txt2img = { workflow: TXT2IMG_WORKFLOW, defaults: { width: 512, height: 512, num_images: 1, negative_prompt: '' } };
function run(input: Record<string, unknown>, options: Record<string, unknown>, o: Partial<ComfyUISettings> = {}, ctxOpts: Parameters<typeof testContext>[0] = {}) {
  const t = testContext(ctxOpts);
  after(t.cleanup);
  t.ctx.fetchMedia = createMediaFetcher({ allowPrivate: true, maxBytes: 1e6, timeoutMs: 1000 });
  const engine = createComfyUIEngine({ baseUrl: fake.url, retry: fast, pollIntervalMs: 5, maxPollIntervalMs: 20, ...o });
  return { t, p: engine.execute({ nodeType: 'x', subModelId: 'x', input, options }, t.ctx) };
}

test('template placeholders: whole values keep their type, partial ones interpolate, seed is random when absent', () => {
  assert.deepEqual([...placeholders(TXT2IMG_WORKFLOW)].sort(), ['height', 'negative_prompt', 'num_images', 'prompt', 'seed', 'width']);
  const g = fillTemplate({ a: '{{n}}', b: 'x {{n}} y', c: ['{{s}}'], d: '{{ seed }}' }, { n: 3, s: 'str' }) as Record<string, unknown>;
  assert.equal(g.a, 3);
  assert.equal(g.b, 'x 3 y');
  assert.deepEqual(g.c, ['str']);
  assert.ok(Number.isInteger(g.d));
  assert.throws(() => fillTemplate({ a: '{{missing}}' }, {}), /uses \{\{missing\}\} but the run has no value/);
});

test('unconfigured: unavailable, "set COMFYUI_URL"', async () => {
  assert.deepEqual(await createComfyUIEngine({}).availability(), { available: false, reason: 'set COMFYUI_URL to the address of a ComfyUI server' });
});

test('txt2img: prompt queued, history polled, saved images downloaded (previews skipped)', async () => {
  const { t, p } = run({ prompt: 'a lighthouse at dusk', seed: 1234, num_images: 2, width: 128, height: 64 }, txt2img);
  const files = (await p).result as FileOutput[];
  assert.equal(files.length, 2);
  assert.equal(files[0]!.contentType, 'image/png');
  assert.deepEqual(files[1]!.data, makePng(16, 8, [60, 30, 90]));
  const sent = fake.callsTo('POST', /^\/prompt$/).at(-1)!.json();
  assert.equal(typeof sent.client_id, 'string');
  assert.equal(sent.prompt['3'].inputs.seed, 1234);
  assert.equal(sent.prompt['6'].inputs.text, 'a lighthouse at dusk');
  assert.equal(sent.prompt['7'].inputs.text, 'blurry, ');
  assert.equal(sent.prompt['5'].inputs.width, 128);
  assert.ok(t.progress.some(([, m]) => /queued on ComfyUI/.test(m ?? '')));
  assert.ok(t.progress.some(([, m]) => m === 'running on ComfyUI'));
  // previews come too when asked
  const withTemp = (await run({ prompt: 'x' }, { ...txt2img, includeTemp: true }).p).result as FileOutput[];
  assert.equal(withTemp.length, 2);
});

test('img2img: the input image is uploaded and the placeholder becomes its name on the server', async () => {
  const png = makePng(6, 6);
  const out = await run({ prompt: 'make it winter', image_url: dataUrl(png, 'image/png') }, { workflow: IMG2IMG_WORKFLOW }).p;
  assert.equal((out.result as FileOutput[]).length, 1);
  const sent = fake.callsTo('POST', /^\/prompt$/).at(-1)!.json();
  const name = sent.prompt['10'].inputs.image;
  assert.match(name, /^atelier-[0-9a-f-]+\.png$/);
  assert.deepEqual(fake.uploads.get(name), png);
});

test('validation errors from /prompt name the node; execution errors name the failing node', async () => {
  const badCkpt = { ...txt2img, workflow: { ...TXT2IMG_WORKFLOW, '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'nope.safetensors' } } } };
  await assert.rejects(run({ prompt: 'x' }, badCkpt).p, (e: Error) => {
    assert.ok(e instanceof EngineInputError);
    assert.match(e.message, /^ComfyUI rejected the input \(HTTP 400\): Prompt outputs failed validation: node 4 \(CheckpointLoaderSimple\): Value not in list ckpt_name: 'nope.safetensors'/);
    return true;
  });
  await assert.rejects(run({ prompt: 'x' }, { ...txt2img, defaults: { ...txt2img.defaults, width: 4 } }).p, /node 5 \(EmptyLatentImage\): Value smaller than min width: 4/);
  await assert.rejects(run({ prompt: 'please explode' }, txt2img).p, (e: Error) => e instanceof EngineError && e.message === 'ComfyUI workflow failed: node 3 (KSampler): Allocation on device 0 would exceed allowed memory. (out of memory)');
  await assert.rejects(run({ prompt: 'x' }, {}).p, /missing options\.workflow/);
  await assert.rejects(run({ prompt: 'x' }, { workflow: { '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } } } }).p, /Prompt has no outputs/);
});

test('retries 5xx and 429 on polling', async () => {
  fake.inject('GET', /^\/history\//, { status: 500, body: '500 Internal Server Error' }, { status: 429, headers: { 'retry-after': '0' }, body: 'busy' });
  const out = await run({ prompt: 'x' }, txt2img).p;
  assert.equal((out.result as FileOutput[]).length, 1);
});

test('abort while running on an older server (no job cancel): POST /interrupt with the prompt id', async () => {
  fake.timing = { wait: 0, run: 100_000 };
  fake.legacy = true;
  after(() => {
    fake.legacy = false;
  });
  const ctl = new AbortController();
  const { p } = run({ prompt: 'x' }, txt2img, {}, { signal: ctl.signal });
  setTimeout(() => ctl.abort(new Error('stop it')), 60);
  await assert.rejects(p, /stop it/);
  const id = fake.callsTo('POST', /^\/prompt$/).length && [...fake.prompts.values()].at(-1)!.id;
  assert.deepEqual(fake.interrupts.at(-1), { prompt_id: id });
  assert.equal(fake.prompts.get(id as string)!.state, 'interrupted');
});

test('abort while queued: removed from the queue, not interrupted; deadline does the same', async () => {
  fake.timing = { wait: 100_000, run: 1 };
  const interrupts = fake.interrupts.length;
  await assert.rejects(run({ prompt: 'x' }, txt2img, {}, { timeoutMs: 120 }).p, (e: Error) => e instanceof EngineError && /ComfyUI workflow did not finish within the run's time limit/.test(e.message));
  const last = [...fake.prompts.values()].at(-1)!;
  assert.equal(last.state, 'deleted');
  // a current server cancels the job itself (issue 28); older ones get POST /queue { delete } (test/unit/engines/remote/comfyui.test.ts)
  assert.equal(fake.callsTo('POST', new RegExp(`^/api/jobs/${last.id}/cancel$`)).length, 1);
  assert.equal(fake.interrupts.length, interrupts);
});

test('a prompt the server forgot fails clearly', async () => {
  fake.timing = { wait: 100_000, run: 1 };
  fake.prompts.clear();
  const { p } = run({ prompt: 'x' }, txt2img, {}, { timeoutMs: 5000 });
  // the server "restarts" once the prompt is queued: every prompt vanishes
  const timer = setInterval(() => {
    if (fake.prompts.size) {
      fake.prompts.clear();
      clearInterval(timer);
    }
  }, 1);
  await assert.rejects(p, /ComfyUI no longer knows prompt/);
});

test('queuing a prompt is retried on 429, and after a 5xx only once ComfyUI is seen not to know its prompt_id', async () => {
  const before = fake.callsTo('POST', /^\/prompt$/).length;
  fake.inject('POST', /^\/prompt$/, { status: 429, headers: { 'retry-after': '0' }, body: 'Too many requests' });
  await run({ prompt: 'x' }, txt2img).p;
  assert.equal(fake.callsTo('POST', /^\/prompt$/).length - before, 2);
  const submits = fake.submits.length;
  fake.inject('POST', /^\/prompt$/, { status: 502, body: 'Bad Gateway' });
  await run({ prompt: 'x' }, txt2img).p;
  const [a, b] = fake.callsTo('POST', /^\/prompt$/).slice(-2).map((c) => c.json().prompt_id);
  assert.equal(a, b, 'sent again under the same prompt_id');
  assert.equal(fake.submits.length - submits, 1, 'queued once');
  fake.inject('POST', /^\/prompt$/, ...Array.from({ length: 4 }, () => ({ status: 502, body: 'Bad Gateway' })));
  await assert.rejects(run({ prompt: 'x' }, txt2img).p, (e: Error) => e instanceof EngineError && e.retryable && /ComfyUI failed \(HTTP 502\): Bad Gateway/.test(e.message));
});
