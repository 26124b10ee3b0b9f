import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { getFrom, slowloris } from '../helpers/fuzzRequests.js';
import { nodeServerOptions } from '../../src/http/connections.js';

/**
 * Issue 26, finding 7: slowloris exhausted the API's descriptors: none of 5,000 half-open requests was
 * closed by the server in 90 s, and at 20,400 /healthz failed for other clients. Now the headers and
 * request time-outs end them, and one address holds at most ATELIER_CONNECTIONS_PER_ADDRESS connections
 * (src/http/connections.ts). Bounded: 300 sockets from loopback, each stopped by the helper at the end.
 */
let srv: TestServer;
before(async () => {
  srv = await startTestServer({ ATELIER_HTTP_HEADERS_TIMEOUT_MS: '1500', ATELIER_HTTP_REQUEST_TIMEOUT_MS: '3000', ATELIER_CONNECTIONS_PER_ADDRESS: '100' });
});
after(async () => srv?.close());

test('the time-outs reach Node: headers, whole request, how often they are checked', () => {
  assert.deepEqual(nodeServerOptions({ headersTimeoutMs: 20_000, requestTimeoutMs: 300_000, keepAliveTimeoutMs: 72_000, connectionsPerAddress: 1024 }),
    { headersTimeout: 20_000, requestTimeout: 300_000, connectionsCheckingInterval: 5000 });
  const server = srv.app.server;
  assert.equal(server.headersTimeout, 1500);
  assert.equal(server.requestTimeout, 3000);
  assert.equal(server.keepAliveTimeout, 72_000);
});

test('300 half-open requests from one address: past the cap closed at once, the rest closed by the time-outs; /healthz answers another client throughout', async () => {
  const attack = slowloris(srv.url, { sockets: 300, dripMs: 400 });
  try {
    // Another client (another loopback address) is served while the attack holds its sockets.
    await attack.opened;
    const health = await getFrom(`${srv.url}/healthz`, '127.0.0.2');
    assert.equal(health.status, 200, health.body);
    // Every one of the attacker's sockets is closed by the server, not by the attacker (generous bound).
    const result = await attack.closedByServer(60_000);
    assert.equal(result.closed, 300, `${300 - result.closed} sockets still open`);
    assert.ok(result.refusedAtOnce >= 200, `${result.refusedAtOnce} sockets refused before any answer (cap 100 of 300)`);
    assert.ok(result.timedOut >= 1 && result.timedOut <= 100, `${result.timedOut} answered 408 by the headers time-out`);
  } finally {
    attack.stop();
  }
  // And the attacker's own address is served again once its sockets are gone.
  const after = await fetch(`${srv.url}/healthz`);
  assert.equal(after.status, 200);
  await after.text();
});
