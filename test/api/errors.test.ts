import { after, before, describe, test } from 'node:test';
import net from 'node:net';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app/app.js';
import { expectErrorBody, startTestServer, type TestServer, type TestResponse } from '../helpers/server.js';

let srv: TestServer;
let app: FastifyInstance;
let base: string;
let key: string;

// A second app over the same services with probe routes, so the error plugin is tested on a thrown bug,
// a schema-validated body and a body limit, exactly as real routes will use them.
before(async () => {
  srv = await startTestServer({ ATELIER_BODY_LIMIT: '2048' });
  key = (await srv.user()).key;
  app = await buildApp(srv.services);
  app.get('/v1/probe/boom', async () => {
    throw new Error('a bug with a secret detail');
  });
  app.post('/v1/probe/echo', {
    schema: {
      body: Type.Object({ name: Type.String({ minLength: 1 }), count: Type.Integer({ minimum: 1 }), nested: Type.Optional(Type.Object({ flag: Type.Boolean() })) }, { additionalProperties: false }),
    },
  }, async (req) => req.body);
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
after(async () => {
  await app.close();
  await srv.close();
});

async function call(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<TestResponse> {
  const res = await fetch(base + path, { method, body, headers: { authorization: `Bearer ${key}`, ...headers } });
  const text = await res.text();
  let parsed;
  try { parsed = JSON.parse(text); } catch { parsed = undefined; }
  return { status: res.status, headers: res.headers, body: parsed, text };
}
const json = { 'content-type': 'application/json' };

describe('error bodies', () => {
  test('unparseable JSON is 400 INVALID_JSON', async () => {
    expectErrorBody(await call('POST', '/v1/probe/echo', '{"name": ', json), 400, 'INVALID_JSON');
    expectErrorBody(await call('POST', '/v1/probe/echo', '{"__proto__": {"x": 1}}', json), 400, 'INVALID_JSON');
    // An empty JSON body is no body: a route that needs one says so by its schema.
    expectErrorBody(await call('POST', '/v1/probe/echo', '', json), 400, 'VALIDATION_ERROR');
  });

  test('a body failing its schema is 400 VALIDATION_ERROR naming the field', async () => {
    let b = expectErrorBody(await call('POST', '/v1/probe/echo', JSON.stringify({ name: 'x' }), json), 400, 'VALIDATION_ERROR');
    assert.equal(b.details[0].path, 'body.count');
    assert.match(b.message, /body\.count/);
    b = expectErrorBody(await call('POST', '/v1/probe/echo', JSON.stringify({ name: 'x', count: '3' }), json), 400, 'VALIDATION_ERROR');
    assert.equal(b.details[0].path, 'body.count', 'strings are not coerced into numbers in bodies');
    b = expectErrorBody(await call('POST', '/v1/probe/echo', JSON.stringify({ name: 'x', count: 1, nested: { flag: 1 } }), json), 400, 'VALIDATION_ERROR');
    assert.equal(b.details[0].path, 'body.nested.flag');
    b = expectErrorBody(await call('POST', '/v1/probe/echo', JSON.stringify({ name: 'x', count: 1, extra: true }), json), 400, 'VALIDATION_ERROR');
    assert.equal(b.details[0].path, 'body.extra');
    b = expectErrorBody(await call('POST', '/v1/probe/echo', '[1,2]', json), 400, 'VALIDATION_ERROR');
    const ok = await call('POST', '/v1/probe/echo', JSON.stringify({ name: 'x', count: 2 }), json);
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, { name: 'x', count: 2 });
  });

  test('a body over the limit is 413 PAYLOAD_TOO_LARGE', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(5000), count: 1 });
    expectErrorBody(await call('POST', '/v1/probe/echo', big, json), 413, 'PAYLOAD_TOO_LARGE');
  });

  test('a non-JSON content type is 415', async () => {
    expectErrorBody(await call('POST', '/v1/probe/echo', 'name=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('a known path with the wrong method is 405 with Allow', async () => {
    const r = await call('DELETE', '/v1/credits/balance');
    expectErrorBody(r, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(r.headers.get('allow'), 'GET');
    expectErrorBody(await call('PUT', '/healthz'), 405, 'METHOD_NOT_ALLOWED');
  });

  test('unknown routes are 404 NOT_FOUND, inside /v1 and out', async () => {
    expectErrorBody(await call('GET', '/v1/nope/nope'), 404, 'NOT_FOUND');
    expectErrorBody(await call('GET', '/elsewhere'), 404, 'NOT_FOUND');
  });

  test('a malformed URL is a 400 error body, not a crash', async () => {
    expectErrorBody(await call('GET', '/v1/%zz'), 400, 'VALIDATION_ERROR');
  });

  test('a bug is 500 INTERNAL without internal details, and the server stays up', async () => {
    const b = expectErrorBody(await call('GET', '/v1/probe/boom'), 500, 'INTERNAL');
    assert.ok(!b.message.includes('secret'));
    assert.equal((await call('GET', '/v1/credits/balance')).status, 200);
  });

  test('every trace id is unique', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await call('GET', '/v1/nope')).body.traceId);
    assert.equal(ids.size, 20);
  });
});

describe('health', () => {
  test('/healthz and /readyz answer without a key', async () => {
    assert.deepEqual((await srv.request('GET', '/healthz')).body, { status: 'ok' });
    assert.deepEqual((await srv.request('GET', '/readyz')).body, { status: 'ok' });
  });
});

describe('requests the HTTP parser rejects', () => {
  // Raw bytes over a socket: no HTTP client would send these, so the answer comes from Node's parser.
  async function raw(bytes: string): Promise<TestResponse> {
    const { port } = new URL(srv.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    socket.write(bytes);
    const chunks: Buffer[] = [];
    for await (const c of socket) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('latin1');
    const [head, body = ''] = text.split('\r\n\r\n');
    const [statusLine, ...lines] = head!.split('\r\n');
    const headers = new Headers(lines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()] as [string, string]));
    let parsed;
    try { parsed = JSON.parse(body); } catch { parsed = undefined; }
    return { status: Number(statusLine!.split(' ')[1]), headers, body: parsed, text: body };
  }

  test('headers over the size limit are 431 with the error body', async () => {
    const b = expectErrorBody(await raw(`GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`), 431, 'PAYLOAD_TOO_LARGE');
    assert.match(b.traceId, /^req_/);
  });

  test('a garbled request line is 400 with the error body', async () => {
    expectErrorBody(await raw('{}GET / HTTP/1.1\r\nHost: x\r\n\r\n'), 400, 'VALIDATION_ERROR');
  });
});
