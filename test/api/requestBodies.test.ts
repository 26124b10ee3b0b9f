import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';

// Request bodies the API refuses, each naming what was wrong (issue 16, items 3 and 13).

let srv: TestServer;
before(async () => {
  srv = await startTestServer();
});
after(async () => {
  await srv.close();
});

const raw = (method: string, path: string, body: string, key: string) =>
  srv.request(method, path, { key, raw: body, headers: { 'content-type': 'application/json' } });

describe('lone surrogates', () => {
  test('an unpaired surrogate anywhere in a JSON string is 400 VALIDATION_ERROR naming the field, on every write route', async () => {
    const u = await srv.user();
    const wf = await srv.request('POST', '/v1/workflows/quick-create', { key: u.key, body: { name: 'wf', requestFields: [{ name: 'text', type: 'text' }] } });
    assert.equal(wf.status, 201, wf.text);
    const node = await srv.request('POST', `/v1/workflows/${wf.body.id}/nodes`, { key: u.key, body: { nodeType: 'espeak_tts', column: 1 } });
    assert.equal(node.status, 201, node.text);
    const cases: Array<[string, string, string, string]> = [
      ['POST', '/v1/nodes/word_count/run', '{"input":{"text":"a\\ud800b"}}', 'body.input.text'],
      ['POST', '/v1/nodes/word_count/run', '{"input":{"text":"\\udc00"}}', 'body.input.text'],
      ['POST', '/v1/runs', `{"workflowId":"${wf.body.id}","values":{"x":{"text":"\\uDBFF"}}}`, 'body.values.x.text'],
      ['POST', '/v1/workflows/quick-create', '{"name":"w\\ud83d"}', 'body.name'],
      ['PATCH', `/v1/workflows/${wf.body.id}/nodes/${node.body.id}`, '{"inputs":{"text":"\\ud800"}}', 'body.inputs.text'],
      ['POST', '/v1/nodes/word_count/run', '{"input":{"\\ud800":"x"}}', 'body.input.\\ud800'],
    ];
    for (const [method, path, body, field] of cases) {
      const r = await raw(method, path, body, u.key);
      const b = expectErrorBody(r, 400, 'VALIDATION_ERROR');
      assert.equal(b.details?.[0]?.path, field, `${method} ${path}: ${r.text}`);
      assert.match(b.message, /surrogate/);
    }
    // A paired surrogate (an emoji spelled as escapes) is fine.
    const ok = await raw('POST', '/v1/nodes/word_count/run', '{"input":{"text":"hi \\ud83d\\ude00"}}', u.key);
    assert.equal(ok.status, 202, ok.text);
  });
});

describe('415 Unsupported Media Type', () => {
  test('a body without Content-Type: application/json is told what to send', async () => {
    const u = await srv.user();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const r = await srv.request('POST', '/v1/nodes/word_count/run', { key: u.key, raw: 'input=x', headers: { 'content-type': type } });
      const b = expectErrorBody(r, 415, 'UNSUPPORTED_MEDIA_TYPE');
      assert.match(b.message, /Content-Type: application\/json/, type);
    }
  });
});
