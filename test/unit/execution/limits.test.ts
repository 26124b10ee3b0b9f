import { test } from 'node:test';
import assert from 'node:assert/strict';
import { outputBytes } from '../../../src/execution/limits.js';
import { executionLimitsFromEnv } from '../../../src/config.js';
import { familyOf } from '../../../src/engines/families.js';

test('output size counts UTF-8 text, file bytes and JSON text', () => {
  assert.equal(outputBytes({ output: { kind: 'text', text: 'é' } }), 2);
  assert.equal(outputBytes({ result: [{ kind: 'file', data: Buffer.alloc(10), contentType: 'x' }, { kind: 'file', data: Buffer.alloc(5), contentType: 'x' }] }), 15);
  assert.equal(outputBytes({ value: { kind: 'json', value: { a: [1, 2] } } }), '{"a":[1,2]}'.length);
  assert.equal(executionLimitsFromEnv({}).maxOutputBytes, 64 * 1024 * 1024);
  assert.throws(() => executionLimitsFromEnv({ ATELIER_MAX_OUTPUT_BYTES: 'lots' }), /ATELIER_MAX_OUTPUT_BYTES/);
  assert.equal(familyOf('word-count'), familyOf('markdown-html'));
  assert.equal(familyOf('some-new-engine'), 'some-new-engine');
});
