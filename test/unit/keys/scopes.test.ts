import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../src/errors.js';
import { checkModelScope, FULL_SCOPE, parseScope, roleRefusal } from '../../../src/keys/scopes.js';

const tts = { nodeType: 'espeak_tts', category: 'audio', provider: 'local' };
const poster = { nodeType: 'poster_render', category: 'image', provider: 'local' };

test('a full key is refused nothing; a read-only key only reads and estimates', () => {
  for (const [m, r] of [['POST', '/v1/workflows'], ['PATCH', '/v1/keys/:keyId'], ['DELETE', '/v1/files/:fileId']]) assert.equal(roleRefusal('full', m!, r), undefined);
  assert.equal(roleRefusal('read-only', 'GET', '/v1/runs/:runId'), undefined);
  assert.equal(roleRefusal('read-only', 'POST', '/v1/nodes/estimate-credits'), undefined);
  assert.equal(roleRefusal('read-only', 'POST', '/v1/runs/batch'), undefined);
  assert.equal(roleRefusal('read-only', 'POST', '/v1/nodes/:nodeType/run')?.code, 'KEY_ROLE');
  assert.equal(roleRefusal('read-only', 'DELETE', '/v1/files/:fileId')?.code, 'KEY_ROLE');
});

test('a run-only key runs and uploads but edits no workflow, key, budget or webhook secret', () => {
  for (const [m, r] of [['POST', '/v1/nodes/:nodeType/run'], ['POST', '/v1/runs'], ['POST', '/v1/files'], ['GET', '/v1/keys'], ['POST', '/v1/workflows/estimate-credits'], ['GET', '/v1/workflows/:id']]) {
    assert.equal(roleRefusal('run-only', m!, r), undefined, `${m} ${r}`);
  }
  for (const [m, r] of [['POST', '/v1/workflows'], ['PATCH', '/v1/workflows/:id'], ['DELETE', '/v1/workflows/:id/nodes/:nodeId'], ['POST', '/v1/workflows/:id/duplicate'],
    ['PATCH', '/v1/keys/:keyId'], ['PATCH', '/v1/credits/budgets'], ['GET', '/v1/webhooks/secret'], ['POST', '/v1/webhooks/secret/rotate']]) {
    assert.equal(roleRefusal('run-only', m!, r)?.code, 'KEY_ROLE', `${m} ${r}`);
  }
});

test('an allow-list refuses a model outside it and names the list; every list that is set must admit the model', () => {
  checkModelScope(undefined, poster);
  checkModelScope(FULL_SCOPE, poster);
  checkModelScope({ ...FULL_SCOPE, nodeTypes: ['espeak_tts'] }, tts);
  assert.throws(() => checkModelScope({ ...FULL_SCOPE, nodeTypes: ['espeak_tts'] }, poster), (e: AppError) => e.code === 'KEY_SCOPE_MODEL' && e.extra?.scope === 'nodeTypes');
  assert.throws(() => checkModelScope({ ...FULL_SCOPE, categories: ['audio'] }, poster), (e: AppError) => e.extra?.scope === 'categories');
  assert.throws(() => checkModelScope({ ...FULL_SCOPE, nodeTypes: ['espeak_tts', 'poster_render'], providers: ['fal'] }, poster), (e: AppError) => e.extra?.scope === 'providers');
  assert.throws(() => checkModelScope({ ...FULL_SCOPE, role: 'read-only' }, tts), (e: AppError) => e.code === 'KEY_ROLE');
});

test('a scope change: omitted fields stay, null allows any, bad values are refused', () => {
  assert.deepEqual(parseScope({}), {});
  assert.deepEqual(parseScope({ role: 'run-only', nodeTypes: ['a', 'a', 'b'], providers: null }), { role: 'run-only', nodeTypes: ['a', 'b'], providers: null });
  assert.throws(() => parseScope({ role: 'owner' }), (e: AppError) => e.code === 'VALIDATION_ERROR');
  assert.throws(() => parseScope({ categories: 'audio' }), (e: AppError) => e.code === 'VALIDATION_ERROR');
  assert.throws(() => parseScope({ nodeTypes: [''] }), (e: AppError) => e.code === 'VALIDATION_ERROR');
});
