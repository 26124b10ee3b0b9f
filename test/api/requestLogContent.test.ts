import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app/app.js';
import { createLogger } from '../../src/logger.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// What the request log holds: no key from a query string, and expected errors not logged as errors
// (found by the attack on the API, issue 16, items 7 and 9).

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

describe('request log', () => {
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
