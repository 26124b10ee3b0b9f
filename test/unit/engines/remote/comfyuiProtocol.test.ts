import { test, after, before, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createComfyUIEngine, type ComfyUISettings } from '../../../../src/engines/remote/comfyui.js';
import type { FileOutput } from '../../../../src/engines/types.js';
import { testContext } from '../../../helpers/engineContext.js';
import { startComfyFake, TXT2IMG_WORKFLOW, type ComfyFake } from '../../../helpers/providers/comfyui.js';

/** The ComfyUI adapter against its fake, for provider finding 8 of issue 28. */
let fake: ComfyFake;
before(async () => {
  fake = await startComfyFake();
});
after(() => fake.close());
beforeEach(() => {
  fake.timing = { wait: 1, run: 1 };
  fake.legacy = false;
});

const fast = { retries: 3, baseDelayMs: 5, maxDelayMs: 200, requestTimeoutMs: 5000 };
const txt2img = { workflow: TXT2IMG_WORKFLOW, defaults: { width: 512, height: 512, num_images: 1, negative_prompt: '' } };
function run(input: Record<string, unknown>, o: Partial<ComfyUISettings> = {}, signal?: AbortSignal) {
  const t = testContext({ signal });
  after(t.cleanup);
  return createComfyUIEngine({ baseUrl: fake.url, retry: fast, pollIntervalMs: 5, maxPollIntervalMs: 20, ...o }).execute({ nodeType: 'x', subModelId: 'x', input, options: txt2img }, t.ctx);
}
/** Another user's prompt, queued straight on the server. */
async function othersPrompt(): Promise<string> {
  const graph = JSON.parse(JSON.stringify(TXT2IMG_WORKFLOW).replace(/"\{\{(width|height)\}\}"/g, '512').replace(/"\{\{num_images\}\}"/g, '1').replace(/"\{\{seed\}\}"/g, '1').replace(/\{\{[a-z_]+\}\}/g, 'x'));
  const r = await fetch(`${fake.url}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: graph }) });
  return ((await r.json()) as { prompt_id: string }).prompt_id;
}

test('cancel on a current server: the atomic POST /api/jobs/{id}/cancel, never the server-wide /interrupt', async () => {
  fake.timing = { wait: 0, run: 100_000 };
  const ctl = new AbortController();
  const p = run({ prompt: 'ours' }, {}, ctl.signal);
  const submits = fake.submits.length;
  while (fake.submits.length === submits) await new Promise((r) => setTimeout(r, 5));
  const ours = fake.submits.at(-1)!;
  while (fake.prompts.get(ours)!.state !== 'running') await new Promise((r) => setTimeout(r, 5));
  ctl.abort(new Error('stop it'));
  const interrupts = fake.interrupts.length;
  await assert.rejects(p, /stop it/);
  assert.equal(fake.interrupts.length, interrupts, 'no /interrupt');
  assert.equal(fake.callsTo('POST', new RegExp(`^/api/jobs/${ours}/cancel$`)).length, 1);
  assert.equal(fake.prompts.get(ours)!.state, 'interrupted');
});

test('cancel on an older server while another user\'s prompt runs: ours leaves the queue, theirs is not interrupted', async () => {
  fake.legacy = true;
  fake.timing = { wait: 0, run: 100_000 };
  const theirs = await othersPrompt();
  // theirs starts running at its first look; ours waits behind it
  fake.prompts.get(theirs)!.state = 'running';
  fake.timing = { wait: 100_000, run: 1 };
  const ctl = new AbortController();
  const submits = fake.submits.length;
  const interrupts = fake.interrupts.length;
  const p = run({ prompt: 'ours' }, {}, ctl.signal);
  // Cancel once ours is queued, however slow the machine (a fixed delay could cancel before the submit).
  while (fake.submits.length === submits) await new Promise((r) => setTimeout(r, 5));
  ctl.abort(new Error('stop it'));
  await assert.rejects(p, /stop it/);
  assert.equal(fake.interrupts.length, interrupts, 'no /interrupt: on this server it would stop their prompt');
  assert.equal(fake.prompts.get(theirs)!.state, 'running');
  assert.equal(fake.prompts.get(fake.submits.at(-1)!)!.state, 'deleted');
});

test('submit carries a prompt_id of our choosing; a submit whose answer was lost is found by it, not queued twice', async () => {
  const before = fake.submits.length;
  fake.inject('POST', /^\/prompt$/, { passThrough: true, hang: true });
  const out = await run({ prompt: 'once' }, { retry: { ...fast, requestTimeoutMs: 800 } });
  assert.equal((out.result as FileOutput[]).length, 1);
  assert.equal(fake.submits.length - before, 1, 'queued once');
  const sent = fake.callsTo('POST', /^\/prompt$/).at(-1)!.json();
  assert.match(sent.prompt_id, /^[0-9a-f-]{36}$/);
});

test('a submit ComfyUI queued whose connection then dropped is found by its prompt_id and completes — queued once', async () => {
  const before = fake.submits.length;
  fake.inject('POST', /^\/prompt$/, { passThrough: true, drop: true });
  const out = await run({ prompt: 'cut off' });
  assert.equal((out.result as FileOutput[]).length, 1);
  assert.equal(fake.submits.length - before, 1, 'exactly one prompt queued');
});

test('a run stopped while its submit is in flight cancels the prompt by its prompt_id (it may be queued all the same)', async () => {
  fake.timing = { wait: 100_000, run: 1 };
  const ctl = new AbortController();
  const submits = fake.submits.length;
  // The server queues the prompt, and its answer is slow to come back.
  fake.inject('POST', /^\/prompt$/, { passThrough: true, delayMs: 30_000 });
  const p = run({ prompt: 'stopped mid-submit' }, {}, ctl.signal);
  while (fake.submits.length === submits) await new Promise((r) => setTimeout(r, 5));
  ctl.abort(new Error('stop it'));
  await assert.rejects(p, /stop it/);
  const ours = fake.submits.at(-1)!;
  assert.equal(fake.callsTo('POST', new RegExp(`^/api/jobs/${ours}/cancel$`)).length, 1);
  assert.notEqual(fake.prompts.get(ours)!.state, 'pending', 'left in the queue, to run and be paid for');
});
