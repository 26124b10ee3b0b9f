import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitForStatus } from '../helpers/poll.js';
import { startOpenAIFake, type OpenAIFake } from '../helpers/providers/openai.js';
import { startComfyFake, TXT2IMG_WORKFLOW, type ComfyFake } from '../helpers/providers/comfyui.js';

/**
 * Issue 19: pointing OPENAI_BASE_URL at a local server (Ollama, vLLM, LM Studio) marked every OpenAI-named
 * model available and sent gpt-5.4 to a server without it. Availability now comes from the server's
 * GET /models, the operator maps catalog names to served models, and a ComfyUI workflow needing a node
 * the server lacks (GET /object_info) is unavailable. Real HTTP servers speaking each protocol.
 */
let openai: OpenAIFake;
let comfy: ComfyFake;
let srv: TestServer;
let dir: string;
type Entry = { nodeType: string; available: boolean; unavailableReason?: string };

before(async () => {
  openai = await startOpenAIFake({ models: ['llama3.2:3b', 'qwen2.5:7b'] });
  comfy = await startComfyFake();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-served-'));
  const file = path.join(dir, 'atelier.models.json');
  fs.writeFileSync(file, JSON.stringify({
    providerModels: { gpt_5_4: 'llama3.2:3b' },
    models: [{
      nodeType: 'upscale_comfy_custom', name: 'Custom upscale (ComfyUI)', description: 'Needs a custom node', category: 'image',
      modes: [{
        subModelId: 'upscale-comfy-custom', label: 'Upscale', category: 'image-to-image', fields: ['prompt'],
        pricing: { kind: 'flat', microcredits: 1000 },
        engine: { engine: 'comfyui', options: { workflow: { ...TXT2IMG_WORKFLOW, '10': { class_type: 'UltimateSDUpscale', inputs: { image: ['8', 0] } } } } },
      }],
    }],
  }));
  // The engines read the provider variables from the process environment (this test file's own process).
  Object.assign(process.env, { OPENAI_BASE_URL: `${openai.url}/v1`, COMFYUI_URL: comfy.url, ATELIER_MODELS_FILE: file, ATELIER_ALLOW_PRIVATE_URLS: '1' });
  srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' });
});
after(async () => {
  await srv.close();
  await openai.close();
  await comfy.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('remote availability from the provider\'s own lists', () => {
  it('an OpenAI-compatible server: only the mapped model is available; the others say the server does not serve them', async () => {
    const u = await srv.user();
    const models = (await srv.request('GET', '/v1/models', { key: u.key })).body as Entry[];
    const by = (t: string) => models.find((m) => m.nodeType === t)!;
    assert.equal(by('gpt_5_4').available, true);
    const image = by('gpt_image_2');
    assert.equal(image.available, false);
    assert.match(image.unavailableReason!, /does not serve "gpt-image-2"/);
    assert.match(image.unavailableReason!, /llama3\.2:3b/);
    assert.match(image.unavailableReason!, /providerModels/);
  });

  it('a run of the mapped model sends the served name; an unserved one is refused before anything is charged', async () => {
    const u = await srv.user({ microcredits: 10_000_000n });
    const created = await srv.request('POST', '/v1/nodes/gpt_5_4/run', { key: u.key, body: { input: { prompt: 'hi' } } });
    assert.equal(created.status, 202, created.text);
    const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${created.body.runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(run.status, 'COMPLETED', run.error);
    assert.equal(openai.lastChat.model, 'llama3.2:3b');

    const refused = await srv.request('POST', '/v1/nodes/gpt_image_2/run', { key: u.key, body: { subModelId: 'gpt-image-2-text', input: { prompt: 'a fox' } } });
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.body.code, 'MODEL_UNAVAILABLE');
  });

  it('ComfyUI: a workflow needing a node the server has not installed is unavailable; the standard one is available', async () => {
    const u = await srv.user();
    const models = (await srv.request('GET', '/v1/models', { key: u.key })).body as Entry[];
    const custom = models.find((m) => m.nodeType === 'upscale_comfy_custom')!;
    assert.equal(custom.available, false);
    assert.match(custom.unavailableReason!, /UltimateSDUpscale/);
    assert.equal(models.find((m) => m.nodeType === 'sdxl_comfyui')!.available, true);
  });
});

describe('providerModels in atelier.models.json', () => {
  it('names every bad entry: an unknown model, a local model, an empty name', async () => {
    const { parseProviderModelMap, OperatorModelsError } = await import('../../src/catalog/operatorModels.js');
    const { builtinModels } = await import('../../src/catalog/models/index.js');
    const builtin = builtinModels({});
    assert.throws(() => parseProviderModelMap({ providerModels: { no_such: 'x', espeak_tts: 'y', gpt_5_4: ' ' } }, 'atelier.models.json', builtin), (e: Error) => {
      assert.ok(e instanceof OperatorModelsError);
      assert.match(e.message, /providerModels\.no_such: not a built-in remote model/);
      assert.match(e.message, /providerModels\.espeak_tts: not a built-in remote model/);
      assert.match(e.message, /providerModels\.gpt_5_4: must be the served model's name/);
      return true;
    });
    assert.deepEqual([...parseProviderModelMap({ providerModels: { 'gpt-5-4': 'qwen2.5:7b' } }, 'f', builtin)], [['gpt-5-4', 'qwen2.5:7b']]);
  });
});
