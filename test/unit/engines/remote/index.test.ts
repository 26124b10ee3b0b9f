import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { remoteEnginesFromEnv, REMOTE_ENGINE_IDS } from '../../../../src/engines/remote/index.js';
import type { FileOutput } from '../../../../src/engines/types.js';
import { testContext } from '../../../helpers/engineContext.js';
import { startFalFake } from '../../../helpers/providers/fal.js';

test('with no provider variables every adapter is listed, unavailable, with the variable to set', async () => {
  const engines = remoteEnginesFromEnv({});
  assert.deepEqual(engines.map((e) => e.id), [...REMOTE_ENGINE_IDS]);
  const reasons = await Promise.all(engines.map((e) => e.availability()));
  assert.ok(reasons.every((r) => r.available === false));
  assert.match(reasons[0]!.reason!, /OPENAI_API_KEY/);
  assert.match(reasons[1]!.reason!, /set FAL_KEY/);
  assert.match(reasons[2]!.reason!, /set REPLICATE_API_TOKEN/);
  assert.match(reasons[3]!.reason!, /set COMFYUI_URL/);
  assert.match(reasons[4]!.reason!, /set OPENROUTER_API_KEY/);
  assert.match(reasons[5]!.reason!, /set ELEVENLABS_API_KEY/);
  assert.match(reasons[6]!.reason!, /set DEEPGRAM_API_KEY/);
  assert.match(reasons[7]!.reason!, /set XAI_API_KEY/);
  assert.match(reasons[8]!.reason!, /set GEMINI_API_KEY/);
  assert.match(reasons[9]!.reason!, /set WAVESPEED_API_KEY/);
  assert.match(reasons[10]!.reason!, /set HEDRA_API_KEY/);
  assert.match(reasons[11]!.reason!, /set MISTRAL_API_KEY/);
  for (const e of engines) assert.ok(e.requirements.length > 0);
  // blank values count as unset
  assert.equal((await remoteEnginesFromEnv({ FAL_KEY: '  ' })[1]!.availability()).available, false);
});

test('configured from the environment: key-based adapters available without network; servers that cannot list their models unavailable', async () => {
  // Nothing listens on these ports: an OpenAI-compatible server and ComfyUI are asked what they serve
  // (GET /models, GET /object_info) and, unreachable, are unavailable with the reason (issue 19).
  const env = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', FAL_KEY: 'k', REPLICATE_API_TOKEN: 't', COMFYUI_URL: 'http://127.0.0.1:9', ELEVENLABS_API_KEY: 'e', DEEPGRAM_API_KEY: 'd', XAI_API_KEY: 'x', GEMINI_API_KEY: 'g', WAVESPEED_API_KEY: 'w', HEDRA_API_KEY: 'h', MISTRAL_API_KEY: 'm' };
  const all = remoteEnginesFromEnv(env);
  const status = await Promise.all(all.map((e) => e.availability()));
  assert.deepEqual(status.map((a) => a.available), [false, true, true, false, false, true, true, true, true, true, true, true]);
  assert.match(status[0]!.reason!, /GET \/models failed/);
  assert.match(status[3]!.reason!, /GET \/object_info failed/);

  const fal = await startFalFake('env-key-123');
  after(() => fal.close());
  const [, falEngine] = remoteEnginesFromEnv(
    { FAL_KEY: 'env-key-123', FAL_QUEUE_URL: `${fal.url}/queue`, FAL_BASE_URL: `${fal.url}/run`, FAL_STORAGE_URL: fal.url, ATELIER_ALLOW_PRIVATE_URLS: '1' },
    { pollIntervalMs: 5, maxPollIntervalMs: 10 },
  );
  const t = testContext();
  after(t.cleanup);
  const out = await falEngine!.execute({ nodeType: 'flux', subModelId: 'flux', input: { prompt: 'env' }, options: { model: 'fal-ai/flux-pro/v1.1' } }, t.ctx);
  assert.equal((out.result as FileOutput[])[0]!.contentType, 'image/png');
  // without ATELIER_ALLOW_PRIVATE_URLS the loopback output URL is refused
  const [, strict] = remoteEnginesFromEnv({ FAL_KEY: 'env-key-123', FAL_QUEUE_URL: `${fal.url}/queue` }, { pollIntervalMs: 5 });
  await assert.rejects(strict!.execute({ nodeType: 'flux', subModelId: 'flux', input: { prompt: 'env' }, options: { model: 'fal-ai/flux-pro/v1.1' } }, t.ctx), /cannot download the fal output/);
});
