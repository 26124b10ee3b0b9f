import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import { waitForStatus } from '../helpers/poll.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format, one sample a line. */
function parse(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The sum over samples of `name` whose labels include `labels`; undefined when there is none. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const hits = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return hits.length ? hits.reduce((a, s) => a + s.value, 0) : undefined;
}

async function scrape(url: string, token?: string): Promise<{ status: number; type: string | null; text: string; samples: Sample[] }> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), text, samples: parse(text) };
}

describe('/metrics enabled (ATELIER_METRICS=1)', () => {
  let srv: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    srv = await startTestServer({ ATELIER_METRICS: '1', ATELIER_ALLOW_PRIVATE_URLS: '1' });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await srv.close();
  });

  test('requests are counted by route template, method and status; latency is a histogram', async () => {
    const u = await srv.user();
    const first = await scrape(`${srv.url}/metrics`);
    assert.equal(first.status, 200);
    assert.match(first.type ?? '', /^text\/plain; version=0\.0\.4/);
    assert.ok(value(first.samples, 'atelier_process_resident_memory_bytes', { role: 'all' })! > 0, 'default process metrics, labelled with the role');
    const balance = { method: 'GET', route: '/v1/credits/balance', status: '200' };
    const before = value(first.samples, 'atelier_http_requests_total', balance) ?? 0;

    for (let i = 0; i < 3; i++) assert.equal((await srv.request('GET', '/v1/credits/balance', { key: u.key })).status, 200);
    const r = await srv.request('POST', '/v1/nodes/word_count/run', { key: u.key, body: { input: { text: 'count these words' }, webhook: { url: receiver.url('/m') } } });
    assert.equal(r.status, 202, r.text);
    await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED']);
    assert.equal((await srv.request('GET', '/v1/no-such-thing', { key: u.key })).status, 404);

    const now = await scrape(`${srv.url}/metrics`);
    assert.equal(value(now.samples, 'atelier_http_requests_total', balance), before + 3);
    assert.equal(value(now.samples, 'atelier_http_request_duration_seconds_count', balance), before + 3);
    assert.equal(value(now.samples, 'atelier_http_request_duration_seconds_bucket', { ...balance, le: '+Inf' }), before + 3);
    assert.ok(value(now.samples, 'atelier_http_requests_total', { method: 'GET', route: '/v1/nodes/runs/:runId', status: '200' })! >= 1);
    assert.equal(value(now.samples, 'atelier_http_requests_total', { method: 'POST', route: '/v1/nodes/:nodeType/run', status: '202' }), 1);
    assert.equal(value(now.samples, 'atelier_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1);
    assert.ok(!now.text.includes(r.body.runId), 'no raw URL (run id) appears as a label');
    assert.ok(!now.text.includes('/v1/no-such-thing'), 'unknown paths do not become series');
  });

  test('run durations by model, webhook attempts by outcome, queue depth from the database', async () => {
    const u = await srv.user();
    const before = await scrape(`${srv.url}/metrics`);
    const done = { kind: 'node', model: 'word_count', status: 'COMPLETED' };
    const runsBefore = value(before.samples, 'atelier_run_duration_seconds_count', done) ?? 0;
    const deliveredBefore = value(before.samples, 'atelier_webhook_attempts_total', { outcome: 'delivered' }) ?? 0;

    const r = await srv.request('POST', '/v1/nodes/word_count/run', { key: u.key, body: { input: { text: 'one more' }, webhook: { url: receiver.url('/d') } } });
    assert.equal(r.status, 202, r.text);
    await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED']);
    await receiver.waitFor((all) => all.filter((x) => x.path === '/d').length >= 2);

    const deadline = Date.now() + 30_000;
    let now = await scrape(`${srv.url}/metrics`);
    // The attempt is counted just after the receiver answered.
    while ((value(now.samples, 'atelier_webhook_attempts_total', { outcome: 'delivered' }) ?? 0) < deliveredBefore + 2 && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 100));
      now = await scrape(`${srv.url}/metrics`);
    }
    assert.equal(value(now.samples, 'atelier_webhook_attempts_total', { outcome: 'delivered' }), deliveredBefore + 2);
    assert.equal(value(now.samples, 'atelier_run_duration_seconds_count', done), runsBefore + 1);
    assert.ok(value(now.samples, 'atelier_run_duration_seconds_bucket', { ...done, le: '1800' })! >= runsBefore + 1);
    // The delivered attempt is counted when the receiver answers, a moment before its row is marked
    // delivered, and the run's job is completed just after the run: the gauges read from the database
    // settle to zero shortly after.
    const settled = (n: typeof now) => ['node', 'workflow', 'workflow_node'].every((kind) => value(n.samples, 'atelier_queue_depth', { kind }) === 0 && value(n.samples, 'atelier_runs_running', { kind }) === 0)
      && value(n.samples, 'atelier_webhook_deliveries_pending') === 0;
    while (!settled(now) && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 100));
      now = await scrape(`${srv.url}/metrics`);
    }
    for (const kind of ['node', 'workflow', 'workflow_node']) {
      assert.equal(value(now.samples, 'atelier_queue_depth', { kind }), 0, `queue depth of ${kind}`);
      assert.equal(value(now.samples, 'atelier_runs_running', { kind }), 0);
    }
    assert.equal(value(now.samples, 'atelier_webhook_deliveries_pending'), 0);
  });

  test('/metrics is not part of the public OpenAPI document', async () => {
    const doc = (await srv.request('GET', '/v1/openapi.json')).body;
    assert.equal(doc.paths['/metrics'], undefined);
    assert.ok(srv.routes().some((r) => r.url === '/metrics' && r.method === 'GET'), 'the route is registered');
  });
});

describe('/metrics guarded by ATELIER_METRICS_TOKEN, on an API-only process', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startTestServer({ ATELIER_METRICS_TOKEN: 'scrape-me-please' }, { role: 'api' });
  });
  after(async () => {
    await srv.close();
  });

  test('no token or a wrong one is 401 with the error body; the token reads queued runs from the database', async () => {
    expectErrorBody(await srv.request('GET', '/metrics'), 401, 'UNAUTHORIZED');
    expectErrorBody(await srv.request('GET', '/metrics', { headers: { authorization: 'Bearer scrape-me-not' } }), 401, 'UNAUTHORIZED');
    const u = await srv.user();
    expectErrorBody(await srv.request('GET', '/metrics', { key: u.key }), 401, 'UNAUTHORIZED');
    // No worker here: the run stays queued, and every API process sees it in the gauge.
    const r = await srv.request('POST', '/v1/nodes/word_count/run', { key: u.key, body: { input: { text: 'waiting' } } });
    assert.equal(r.status, 202, r.text);
    const ok = await scrape(`${srv.url}/metrics`, 'scrape-me-please');
    assert.equal(ok.status, 200);
    assert.equal(value(ok.samples, 'atelier_queue_depth', { kind: 'node', role: 'api' }), 1);
  });
});

describe('/metrics off by default; a separate listener for processes without the API', () => {
  let off: TestServer;
  let worker: TestServer;
  before(async () => {
    off = await startTestServer();
    worker = await startTestServer({ ATELIER_METRICS: '1', ATELIER_METRICS_PORT: '0' }, { role: 'worker' });
  });
  after(async () => {
    await off.close();
    await worker.close();
  });

  test('not enabled: 404 like any unknown path', async () => {
    expectErrorBody(await off.request('GET', '/metrics'), 404, 'NOT_FOUND');
    assert.equal(off.metricsUrl, undefined);
  });

  test('a worker serves its metrics on ATELIER_METRICS_PORT', async () => {
    assert.ok(worker.metricsUrl, 'the listener started');
    const s = await scrape(worker.metricsUrl!);
    assert.equal(s.status, 200);
    assert.ok(value(s.samples, 'atelier_process_cpu_user_seconds_total', { role: 'worker' })! >= 0);
    assert.equal(value(s.samples, 'atelier_queue_depth', { kind: 'node' }), 0);
    const miss = await fetch(worker.metricsUrl!.replace('/metrics', '/other'));
    assert.equal(miss.status, 404);
    assert.equal((await miss.json()).code, 'NOT_FOUND');
  });
});
