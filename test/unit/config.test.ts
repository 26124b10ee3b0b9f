import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTrustProxy } from '../../src/config.js';

// Settings read by src/config.ts. ATELIER_TRUST_PROXY came with issue 16, item 6 (lock-out behind a proxy).

test('ATELIER_TRUST_PROXY: addresses, true, or nothing; a hop count is refused (Fastify cannot check it)', () => {
  assert.equal(parseTrustProxy(undefined), false);
  assert.equal(parseTrustProxy('false'), false);
  assert.equal(parseTrustProxy('true'), true);
  assert.equal(parseTrustProxy(' 10.0.0.0/8 , 127.0.0.1 '), '10.0.0.0/8,127.0.0.1');
  assert.throws(() => parseTrustProxy('1'), /hop count/);
});
