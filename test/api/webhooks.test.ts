import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { spawn } from 'node:child_process';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import { waitForStatus } from '../helpers/poll.js';
import { BIN, runCli } from '../helpers/cli.js';
import { slowRunBody } from '../helpers/slowRun.js';
import { siblingEnv } from '../helpers/processes.js';

let srv: TestServer;
let rx: Awaited<ReturnType<typeof startReceiver>>;
before(async () => {
  srv = await startTestServer({ ATELIER_WEBHOOK_RETRY_SCHEDULE: '0,1,1,1', ATELIER_ALLOW_PRIVATE_URLS: '1' });
  rx = await startReceiver();
});
after(async () => {
  await rx.close();
  await srv.close();
});

const SFX = (webhook: unknown, seed = 1) => ({ subModelId: 'sfxr-pickup-coin', input: { seed }, webhook });
const run = (key: string, body: unknown, headers: Record<string, string> = {}) => srv.request('POST', '/v1/nodes/sfxr_sound_effects/run', { key, body, headers });

describe('events of a standalone run', () => {
  test('started and completed arrive in order, signed, with metadata and extra headers', async () => {
    const u = await srv.user();
    const secret = (await srv.request('GET', '/v1/webhooks/secret', { key: u.key })).body.secret;
    assert.match(secret, /^whsec_/);
    const r = await run(u.key, SFX({ url: rx.url('/a'), metadata: { order: 42, tag: 'x' }, headers: { 'x-tenant': 't1' } }));
    assert.equal(r.status, 202, r.text);
    await rx.waitFor(() => rx.forPath('/a').length >= 2);
    const [started, completed] = rx.forPath('/a');
    assert.deepEqual([started!.json.type, completed!.json.type], ['run.started', 'run.completed']);
    for (const d of [started!, completed!]) {
      assert.equal(d.json.runId, r.body.runId);
      assert.equal(d.json.workflowId, 'sfxr_sound_effects');
      assert.deepEqual(d.json.metadata, { order: 42, tag: 'x' });
      assert.equal(d.json.error, null);
      assert.equal(d.json.success, true);
      assert.ok(!Number.isNaN(Date.parse(d.json.createdAt)));
      assert.equal(d.headers['x-tenant'], 't1');
      assert.equal(d.headers['content-type'], 'application/json');
      // Both official libraries verify against the raw body.
      new StandardWebhook(secret).verify(d.body, d.headers);
      new SvixWebhook(secret).verify(d.body, { 'svix-id': d.headers['svix-id']!, 'svix-timestamp': d.headers['svix-timestamp']!, 'svix-signature': d.headers['svix-signature']! });
      assert.throws(() => new StandardWebhook(secret).verify(d.body.replace('"success":true', '"success":false'), d.headers));
    }
    assert.deepEqual(started!.json.data, { status: 'RUNNING', totalNodes: 1 });
    assert.equal(completed!.json.data.status, 'COMPLETED');
    assert.equal(completed!.json.data.completedNodes, 1);
    assert.equal(completed!.json.data.failedNodes, 0);
    assert.equal(completed!.json.data.actualCredits, r.body.estimatedCredits);
    assert.ok(completed!.json.data.outputs.result[0].startsWith('http'));
  });

  test('the events filter is honoured', async () => {
    const u = await srv.user();
    const r = await run(u.key, SFX({ url: rx.url('/filtered'), events: ['run.completed'] }));
    await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED']);
    await rx.waitFor(() => rx.forPath('/filtered').length >= 1);
    await new Promise((res) => setTimeout(res, 300));
    assert.deepEqual(rx.forPath('/filtered').map((d) => d.json.type), ['run.completed']);
  });

  test('a canceled run sends run.canceled with success false', async () => {
    const u = await srv.user();
    const slow = await slowRunBody();
    const r = await srv.request('POST', slow.path, { key: u.key, body: { ...slow.body, webhook: { url: rx.url('/cancel') } } });
    await srv.request('POST', `/v1/nodes/runs/${r.body.runId}/cancel`, { key: u.key });
    await rx.waitFor(() => rx.forPath('/cancel').some((d) => d.json.type === 'run.canceled'));
    const c = rx.forPath('/cancel').find((d) => d.json.type === 'run.canceled')!;
    assert.equal(c.json.success, false);
    assert.equal(c.json.data.status, 'CANCELED');
    assert.equal(typeof c.json.error, 'string');
  });
});

describe('delivery', () => {
  test('500 twice then 200: delivered on the third attempt with the same webhook-id', async () => {
    const u = await srv.user();
    rx.setResponder((r, n) => (r.path === '/flaky' && n <= 2 ? 500 : 200));
    const r = await run(u.key, SFX({ url: rx.url('/flaky'), events: ['run.completed'] }));
    await rx.waitFor(() => rx.forPath('/flaky').length >= 3, 20_000);
    const ids = new Set(rx.forPath('/flaky').map((d) => d.headers['webhook-id']));
    assert.equal(ids.size, 1);
    const log = await srv.request('GET', `/v1/webhooks/deliveries?runId=${r.body.runId}`, { key: u.key });
    assert.equal(log.status, 200);
    const d = log.body.items[0];
    await new Promise((res) => setTimeout(res, 200));
    const again = (await srv.request('GET', `/v1/webhooks/deliveries?runId=${r.body.runId}`, { key: u.key })).body.items[0];
    assert.equal(again.status, 'delivered');
    assert.deepEqual(again.attemptLog.map((a: { statusCode: number }) => a.statusCode), [500, 500, 200]);
    assert.ok(again.attemptLog.every((a: { latencyMs: number }) => a.latencyMs >= 0));
    assert.equal(d.eventType, 'run.completed');
    rx.setResponder(() => 200);
  });

  test('a receiver that is down during the run gets everything later', async () => {
    const late = await startReceiver();
    const port = late.port;
    await late.close();
    const u = await srv.user();
    const r = await run(u.key, SFX({ url: `http://127.0.0.1:${port}/late` }));
    await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED']);
    await new Promise((res) => setTimeout(res, 400));
    const back = await startReceiver(port);
    try {
      await back.waitFor(() => back.received.length >= 2, 20_000);
      assert.deepEqual(back.received.map((d) => d.json.type), ['run.started', 'run.completed']);
    } finally {
      await back.close();
    }
  });

  test('a 410 stops retries; the log says why', async () => {
    const u = await srv.user();
    rx.setResponder((req) => (req.path === '/gone' ? 410 : 200));
    const r = await run(u.key, SFX({ url: rx.url('/gone'), events: ['run.completed'] }));
    await rx.waitFor(() => rx.forPath('/gone').length >= 1);
    await new Promise((res) => setTimeout(res, 1500));
    assert.equal(rx.forPath('/gone').length, 1);
    const d = (await srv.request('GET', `/v1/webhooks/deliveries?runId=${r.body.runId}&status=failed`, { key: u.key })).body.items[0];
    assert.match(d.lastError, /410/);
    rx.setResponder(() => 200);
  });

  test('replay sends the event again with the same id', async () => {
    const u = await srv.user();
    const r = await run(u.key, SFX({ url: rx.url('/replay'), events: ['run.completed'] }));
    await rx.waitFor(() => rx.forPath('/replay').length >= 1);
    const eventId = rx.forPath('/replay')[0]!.headers['webhook-id']!;
    const rep = await srv.request('POST', `/v1/webhooks/deliveries/${eventId}/replay`, { key: u.key });
    assert.equal(rep.status, 202, rep.text);
    await rx.waitFor(() => rx.forPath('/replay').length >= 2);
    assert.equal(rx.forPath('/replay')[1]!.headers['webhook-id'], eventId);
    const other = await srv.user();
    expectErrorBody(await srv.request('POST', `/v1/webhooks/deliveries/${eventId}/replay`, { key: other.key }), 404, 'NOT_FOUND');
    void r;
  });

  test('after a rotation both secrets sign for a while', async () => {
    const u = await srv.user();
    const old = (await srv.request('GET', '/v1/webhooks/secret', { key: u.key })).body.secret;
    const cli = await runCli(['webhooks', 'secret', '--email', u.email, '--rotate', '--json'], { DATABASE_URL: srv.databaseUrl, DATA_DIR: srv.dataDir });
    assert.equal(cli.code, 0, cli.stderr);
    const fresh = JSON.parse(cli.stdout).secret;
    assert.notEqual(fresh, old);
    assert.equal((await srv.request('GET', '/v1/webhooks/secret', { key: u.key })).body.secret, fresh);
    await run(u.key, SFX({ url: rx.url('/rotated'), events: ['run.completed'] }));
    await rx.waitFor(() => rx.forPath('/rotated').length >= 1);
    const d = rx.forPath('/rotated')[0]!;
    assert.equal(d.headers['webhook-signature']!.split(' ').length, 2);
    new StandardWebhook(old).verify(d.body, d.headers);
    new StandardWebhook(fresh).verify(d.body, d.headers);
  });

  test('two more deliverer processes never send one attempt twice, and keep per-run order', async () => {
    const deliverers = [1, 2].map(() => spawn(process.execPath, [BIN, 'serve', '--role', 'deliverer'], {
      env: { ...process.env, ...siblingEnv(srv), LOG_LEVEL: 'silent', ATELIER_ALLOW_PRIVATE_URLS: '1', ATELIER_WEBHOOK_RETRY_SCHEDULE: '0,1' },
      stdio: 'ignore',
    }));
    try {
      await new Promise((res) => setTimeout(res, 3000)); // let them start and compete for deliveries
      const u = await srv.user();
      const before = rx.forPath('/many').length;
      const runs = await Promise.all(Array.from({ length: 20 }, (_, i) => run(u.key, SFX({ url: rx.url('/many') }, i))));
      for (const r of runs) assert.equal(r.status, 202);
      await rx.waitFor(() => rx.forPath('/many').length - before >= 40, 60_000);
      await new Promise((res) => setTimeout(res, 500));
      const got = rx.forPath('/many').slice(before);
      assert.equal(got.length, 40);
      assert.equal(new Set(got.map((d) => d.headers['webhook-id'])).size, 40);
      for (const r of runs) {
        const types = got.filter((d) => d.json.runId === r.body.runId).map((d) => d.json.type);
        assert.deepEqual(types, ['run.started', 'run.completed']);
      }
    } finally {
      for (const d of deliverers) d.kill('SIGKILL');
    }
  });
});

describe('server-sent events', () => {
  test('the stream carries the run events and closes; Last-Event-ID resumes', async () => {
    const u = await srv.user();
    const r = await run(u.key, SFX(undefined));
    const res = await fetch(`${srv.url}/v1/nodes/runs/${r.body.runId}/events`, { headers: { authorization: `Bearer ${u.key}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /text\/event-stream/);
    const text = await res.text(); // ends when the server closes the stream
    const events = [...text.matchAll(/id: (\d+)\nevent: ([\w.]+)\ndata: (.*)\n\n/g)];
    assert.deepEqual(events.map((m) => m[2]), ['run.started', 'run.completed']);
    assert.equal(JSON.parse(events[1]![3]!).runId, r.body.runId);
    const resumed = await (await fetch(`${srv.url}/v1/nodes/runs/${r.body.runId}/events`, { headers: { authorization: `Bearer ${u.key}`, 'last-event-id': events[0]![1]! } })).text();
    assert.deepEqual([...resumed.matchAll(/event: ([\w.]+)/g)].map((m) => m[1]), ['run.completed']);
    const other = await srv.user();
    expectErrorBody(await srv.request('GET', `/v1/nodes/runs/${r.body.runId}/events`, { key: other.key }), 404, 'NOT_FOUND');
  });
});

describe('webhook config validation', () => {
  test('bad configs are 400s naming the field', async () => {
    const u = await srv.user();
    const cases: Array<[unknown, string]> = [
      [{ url: 'not a url' }, 'body.webhook.url'],
      [{ url: 'https://example.com', events: ['run.exploded'] }, 'body.webhook.events[0]'],
      [{ url: 'https://example.com', events: [] }, 'body.webhook.events'],
      [{ url: 'https://example.com', metadata: { big: 'x'.repeat(5000) } }, 'body.webhook.metadata'],
      [{ url: 'https://example.com', headers: { 'webhook-signature': 'forged' } }, 'body.webhook.headers.webhook-signature'],
      [{ url: 'https://example.com', headers: { 'Content-Type': 'text/plain' } }, 'body.webhook.headers.Content-Type'],
      [{ url: 'https://example.com', secret: 'x' }, 'body.webhook.secret'],
      [{ url: 'https://user:pw@example.com' }, 'body.webhook.url'],
    ];
    for (const [webhook, path] of cases) {
      const b = expectErrorBody(await run(u.key, SFX(webhook)), 400, 'VALIDATION_ERROR');
      assert.equal(b.details[0].path, path, JSON.stringify(webhook));
    }
    assert.equal((await srv.request('GET', '/v1/credits/balance', { key: u.key })).body.reservedMicrocredits, 0);
  });
});
