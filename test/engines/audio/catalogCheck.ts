import assert from 'node:assert/strict';
import type { ModelDef } from '../../../src/catalog/types.js';
import type { Engine } from '../../../src/engines/types.js';

const NODE_TYPE = /^[a-z][a-z0-9_]{1,63}$/;
const SUB_MODEL_ID = /^[a-z0-9][a-z0-9.-]{1,79}$/;
const CONVENTIONS: Record<string, string> = { prompt: 'text', text: 'text', audio_url: 'audio', audio_urls: 'audio', duration: 'number', seed: 'number' };

/** Shared shape checks for a family's catalog entries against its engines (used by each family's test). */
export function assertCatalogMatchesEngines(models: ModelDef[], engines: Engine[]): void {
  const ids = new Set(engines.map((e) => e.id));
  assert.equal(ids.size, engines.length, 'engine ids are unique');
  const subModels = new Set<string>();
  for (const model of models) {
    assert.match(model.nodeType, NODE_TYPE);
    assert.equal(model.provider, 'local');
    assert.ok(model.icon && model.accent && model.description.length > 40, `${model.nodeType} has icon, accent and a description`);
    assert.ok(model.modes.length > 0);
    for (const mode of model.modes) {
      assert.match(mode.subModelId, SUB_MODEL_ID);
      assert.ok(!subModels.has(mode.subModelId), `unique subModelId ${mode.subModelId}`);
      subModels.add(mode.subModelId);
      assert.ok(ids.has(mode.engine.engine), `${mode.subModelId} binds the existing engine ${mode.engine.engine}`);
      assert.ok(mode.outputs.length > 0);
      assert.ok(mode.timeoutSeconds && mode.timeoutSeconds > 0);
      const names = mode.fields.map((x) => x.name);
      assert.equal(new Set(names).size, names.length, `${mode.subModelId}: field names are unique`);
      for (const field of mode.fields) {
        const want = CONVENTIONS[field.name];
        if (want) assert.equal(field.dataType, want, `${mode.subModelId}.${field.name} has port type ${want}`);
        if (field.options && field.default !== undefined) assert.ok(field.options.includes(field.default as string), `${field.name} default is an option`);
      }
      const p = mode.pricing;
      if (p.kind === 'flat') assert.ok(Number.isInteger(p.microcredits) && p.microcredits > 0);
      else if (p.kind === 'per_unit') {
        assert.ok(Number.isInteger(p.microcreditsPerUnit) && p.microcreditsPerUnit > 0);
        if (p.inputField) assert.ok(names.includes(p.inputField), `${mode.subModelId}: pricing field ${p.inputField} exists`);
      }
      for (const out of mode.outputs) {
        if (out.name === 'result') assert.notEqual(out.dataType, 'text');
        if (out.name === 'output') assert.equal(out.dataType, 'text');
      }
    }
  }
}
