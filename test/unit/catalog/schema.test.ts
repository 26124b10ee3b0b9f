import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 as Ajv } from 'ajv/dist/2020.js';
import { builtinModels } from '../../../src/catalog/models/index.js';
import { inputSchema } from '../../../src/catalog/schema.js';

// The Catalog compiles a mode's validators on first use (src/catalog/catalog.ts), so a schema that does not
// compile would only show when that model is first run: every built-in mode is compiled here instead.
test('every built-in mode has an input schema that compiles, whole and partial', () => {
  const ajv = new Ajv({ allErrors: false, useDefaults: true, strict: false, coerceTypes: false });
  let modes = 0;
  for (const model of builtinModels()) {
    for (const mode of model.modes) {
      assert.doesNotThrow(() => ajv.compile(inputSchema(mode)), mode.subModelId);
      assert.doesNotThrow(() => ajv.compile(inputSchema(mode, { requireRequired: false })), mode.subModelId);
      modes++;
    }
  }
  assert.ok(modes > 150, `${modes} modes`);
});
