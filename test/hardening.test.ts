import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app/app.js';
import { createLogger } from '../src/logger.js';
import { expectErrorBody, startTestServer, type TestServer } from './helpers/server.js';
import { waitForStatus } from './helpers/poll.js';

// Findings of the attack on the API (issue 16, items 3, 7, 8, 9, 13), each held fixed here.

let srv: TestServer;
let logged: PassThrough;
let logText = '';
let logApp: FastifyInstance; // the same services behind an app that logs, as `npm start` does

before(async () => {
  srv = await startTestServer();
  logged = new PassThrough();
  logged.on('data', (d) => (logText += d));
  logApp = await buildApp(srv.services, { logger: createLogger('info', { pretty: false, destination: logged }) });
  await logApp.ready();
});
after(async () => {
  await logApp.close();
  await srv.close();
});

const raw = (method: string, path: string, body: string, key: string) =>
  srv.request(method, path, { key, raw: body, headers: { 'content-type': 'application/json' } });

describe('lone surrogates (3)', () => {
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

describe('request log (7, 9)', () => {
  test('a key in a query string never reaches the log', async () => {
    const u = await srv.user();
    for (const url of [`/v1/credits/balance?api_key=${u.key}`, `/v1/credits/balance?token=${u.key}`, `/v1/credits/balance?x=${u.key}`, `/v1/credits/balance?key=${encodeURIComponent(u.key)}`]) {
      const r = await logApp.inject({ method: 'GET', url });
      assert.equal(r.statusCode, 401);
    }
    await new Promise((r) => setImmediate(r));
    assert.ok(logText.includes('/v1/credits/balance?api_key=…'), logText.slice(-500));
    assert.ok(!logText.includes(u.key.slice(3, 20)), 'the key is in the log');
  });

  test('expected errors are not logged as errors: a 503 for an unconfigured provider is a warning without a stack, a 4xx only the request line', async () => {
    const u = await srv.user();
    logText = '';
    const r = await logApp.inject({ method: 'POST', url: '/v1/nodes/flux_2_pro/run', headers: { authorization: `Bearer ${u.key}`, 'content-type': 'application/json' }, payload: { input: { prompt: 'x' } } });
    assert.equal(r.statusCode, 503);
    await logApp.inject({ method: 'GET', url: '/v1/nodes/runs/run_nope', headers: { authorization: `Bearer ${u.key}` } });
    await new Promise((r) => setImmediate(r));
    const lines = logText.trim().split('\n').map((l) => JSON.parse(l));
    assert.ok(lines.length >= 2, logText);
    assert.deepEqual(lines.filter((l) => l.level >= 50), [], 'nothing at error level');
    assert.ok(!logText.includes('"stack"'), 'no stack trace');
    const warn = lines.find((l) => l.level === 40);
    assert.equal(warn?.code, 'MODEL_UNAVAILABLE');
  });
});

describe('files (8)', () => {
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

describe('415 (13)', () => {
  test('a body without Content-Type: application/json is told what to send', async () => {
    const u = await srv.user();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const r = await srv.request('POST', '/v1/nodes/word_count/run', { key: u.key, raw: 'input=x', headers: { 'content-type': type } });
      const b = expectErrorBody(r, 415, 'UNSUPPORTED_MEDIA_TYPE');
      assert.match(b.message, /Content-Type: application\/json/, type);
    }
  });
});
