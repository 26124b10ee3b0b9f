import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonNestingDepth } from '../../../src/http/jsonDepth.js';

test('nesting depth counts arrays and objects, not brackets inside strings', () => {
  assert.equal(jsonNestingDepth('1'), 0);
  assert.equal(jsonNestingDepth('{}'), 1);
  assert.equal(jsonNestingDepth('{"a":[1,{"b":[]}]}'), 4);
  assert.equal(jsonNestingDepth('{"a":"[[[[{{{{"}'), 1);
  assert.equal(jsonNestingDepth('{"a":"\\"[[["}'), 1, 'an escaped quote does not end the string');
  assert.equal(jsonNestingDepth('["\\\\", [[]]]'), 3, 'an escaped backslash does not escape the closing quote');
  assert.equal(jsonNestingDepth('[[],[],[[]]]'), 3);
});

test('the scan stops as soon as the limit is passed', () => {
  assert.equal(jsonNestingDepth('['.repeat(1_000_000), 64), 65);
});
