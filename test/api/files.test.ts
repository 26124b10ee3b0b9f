import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { waitForStatus } from '../helpers/poll.js';

// GET /v1/files/{id}: headers of every answer and refused requests (issue 16, item 8).

let srv: TestServer;
before(async () => {
  srv = await startTestServer();
});
after(async () => {
  await srv.close();
});

describe('file downloads', () => {
  test('nosniff on every answer, a 416 without the file\'s headers, and two Authorization headers refused', async () => {
    const u = await srv.user();
    const r = await srv.request('POST', '/v1/nodes/espeak_tts/run', { key: u.key, body: { input: { text: 'hi' } } });
    assert.equal(r.status, 202, r.text);
    const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(run.status, 'COMPLETED', JSON.stringify(run));
    const fileId = run.files[0].id as string;
    const ok = await srv.request('GET', `/v1/files/${fileId}`, { key: u.key });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('x-content-type-options'), 'nosniff');
    const signed = await fetch(run.output.result[0]);
    assert.equal(signed.headers.get('x-content-type-options'), 'nosniff');
    await signed.arrayBuffer();
    const bad = await srv.request('GET', `/v1/files/${fileId}`, { key: u.key, headers: { range: 'bytes=99999999-' } });
    expectErrorBody(bad, 416, 'RANGE_NOT_SATISFIABLE');
    assert.equal(bad.headers.get('content-disposition'), null);
    assert.match(bad.headers.get('content-type') ?? '', /application\/json/);
    assert.match(bad.headers.get('content-range') ?? '', /^bytes \*\/\d+$/);
    assert.equal(bad.headers.get('x-content-type-options'), 'nosniff');

    // fetch merges repeated headers, so the raw request goes through node:http.
    const other = await srv.user();
    const twice = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(`/v1/files/${fileId}`, srv.url);
      const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'GET', headers: { Authorization: [`Bearer ${u.key}`, `Bearer ${other.key}`] } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(twice.status, 401, twice.body.slice(0, 200));
    assert.equal(JSON.parse(twice.body).code, 'UNAUTHORIZED');
  });
});

