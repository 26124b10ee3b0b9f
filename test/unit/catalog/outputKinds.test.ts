import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withOutputKinds } from '../../../src/catalog/outputKinds.js';
import { models } from '../../../src/catalog/models/remote.js';

// Issue 28, provider finding 4: generic remote bindings learn which media kind their mode outputs.
test('fal, Replicate and ComfyUI bindings expect the media kind of their outputs; text and other engines are left alone', () => {
  const out = withOutputKinds(models);
  const mode = (nodeType: string) => out.find((m) => m.nodeType === nodeType)!.modes[0]!;
  assert.equal(mode('flux_2_pro').engine.options!.expect, 'image');
  assert.equal(mode('sdxl_comfyui').engine.options!.expect, 'image');
  assert.equal(mode('gemini_3_1_pro').engine.options!.expect, undefined, 'text output');
  assert.equal(mode('gpt_5_4').engine.options!.expect, undefined, 'openai checks its own');
  for (const m of out) for (const md of m.modes) if (md.outputs.length === 1 && md.outputs[0]!.dataType === 'video' && md.engine.engine === 'fal') assert.equal(md.engine.options!.expect, 'video', md.subModelId);
});
