import { test } from 'node:test';
import assert from 'node:assert/strict';
import { safeNextPath } from '../../../src/web/csrf.js';

// Where the web app may send a user after sign-in (issue 16, items 1 and 2).

test('redirect targets after sign-in: same-origin paths only, normalised to a valid header value', () => {
  for (const bad of ['/\t/127.0.0.1:18999/x', '/\n/evil.example', '/\r\n/evil', '//evil.example', '/\\evil.example', 'https://evil.example', '/\u0000x', '/\ud800', '/\u200b/evil', ' /x', '/login', '/logout']) {
    assert.equal(safeNextPath(bad), '/runs', JSON.stringify(bad));
  }
  assert.equal(safeNextPath('/。'), '/%E3%80%82');
  assert.equal(safeNextPath('/credits?x=1'), '/credits?x=1');
  for (const v of ['/。', '/a b', '/é?q=ü']) assert.match(safeNextPath(v), /^[\x21-\x7e]+$/, v);
});
