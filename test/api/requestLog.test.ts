import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { buildApp } from '../../src/app/app.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
before(async () => {
  srv = await startTestServer({}, { role: 'api' });
});
after(async () => {
  await srv.close();
});

test('each request is logged once, at its end, with its trace id, status and duration and without the key', async () => {
  const lines: any[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l)); done(); } });
  const app = await buildApp(srv.services, { logger: pino({ level: 'info' }, sink) });
  const { key } = await srv.user();
  const res = await app.inject({ method: 'GET', url: '/v1/credits/balance', headers: { authorization: `Bearer ${key}` } });
  await app.close();
  const mine = lines.filter((l) => l.traceId === res.headers['x-request-id']);
  assert.equal(mine.length, 1, JSON.stringify(lines));
  assert.deepEqual([mine[0].msg, mine[0].method, mine[0].url, mine[0].statusCode], ['request', 'GET', '/v1/credits/balance', 200]);
  assert.equal(typeof mine[0].ms, 'number');
  assert.ok(!JSON.stringify(lines).includes(key), 'the key never reaches the log');
});

test("a signed file URL's signature stays out of the log", async () => {
  const lines: any[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l)); done(); } });
  const app = await buildApp(srv.services, { logger: pino({ level: 'info' }, sink) });
  const sig = 'S1gnatureThatMustNotBeLogged';
  const res = await app.inject({ method: 'GET', url: `/v1/files/file_nope?exp=1&sig=${sig}&x=1` });
  await app.close();
  const mine = lines.filter((l) => l.traceId === res.headers['x-request-id']);
  assert.equal(mine.length, 1);
  assert.equal(mine[0].url, '/v1/files/file_nope?exp=1&sig=…&x=1');
  assert.ok(!JSON.stringify(lines).includes(sig));
});
