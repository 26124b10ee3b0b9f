import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Atelier, AtelierError } from '../../packages/sdk/src/index.js';
import { backoffMs, isRetryable, parseRetryAfter } from '../../packages/sdk/src/retry.js';

/** The retry loop driven by a scripted fetch, so every decision is deterministic. */
type Step = { status: number; headers?: Record<string, string>; body?: unknown } | 'network';

function scripted(steps: Step[]) {
  const calls: { url: string; method: string; headers: Record<string, string> }[] = [];
  const fetch = async (url: string, init?: RequestInit): Promise<Response> => {
    calls.push({ url, method: init?.method ?? 'GET', headers: { ...(init?.headers as Record<string, string>) } });
    const step = steps.shift();
    if (step === undefined) throw new Error('unexpected extra call');
    if (step === 'network') throw new TypeError('fetch failed');
    const body = step.body ?? (step.status >= 400 ? { error: 'boom', message: 'boom', code: step.status === 429 ? 'RATE_LIMITED' : 'INTERNAL', traceId: 'req_test' } : {});
    return new Response(JSON.stringify(body), { status: step.status, headers: { 'content-type': 'application/json', ...step.headers } });
  };
  return { fetch, calls };
}

const ok = (body: unknown): Step => ({ status: 200, body });
/** Lets every promise that can settle without the clock moving settle (setImmediate is not mocked). */
const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};
const balance = { availableBalance: 1, formatted: '0.00M', hasActiveSubscription: false, isOrganization: false, reservedMicrocredits: 0 };
const created = { runId: 'run_1', status: 'QUEUED', estimatedCredits: 5 };

describe('retries', () => {
  // Waits are checked on node:test's mock clock, not measured: the SDK's sleeps are setTimeout calls, and
  // the clock is moved by hand to just before and to the moment each should end.
  test('429 waits for Retry-After seconds, then succeeds', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { fetch, calls } = scripted([{ status: 429, headers: { 'retry-after': '1' } }, ok(balance)]);
    const c = new Atelier({ apiKey: 'gx_k', baseUrl: 'http://api.test/', fetch });
    const answer = c.credits.balance();
    await settle();
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.url, 'http://api.test/v1/credits/balance');
    assert.equal(calls[0]!.headers.authorization, 'Bearer gx_k');
    t.mock.timers.tick(999);
    await settle();
    assert.equal(calls.length, 1, 'sent again before Retry-After had passed');
    t.mock.timers.tick(1);
    await settle();
    assert.equal(calls.length, 2);
    assert.deepEqual(await answer, balance);
  });

  test('gives up after maxRetries with the last error', async () => {
    const { fetch, calls } = scripted([{ status: 429, headers: { 'retry-after': '0' } }, { status: 429, headers: { 'retry-after': '0' } }, { status: 429, headers: { 'retry-after': '0' } }]);
    const c = new Atelier({ apiKey: 'gx_k', baseUrl: 'http://api.test', fetch, maxRetries: 2 });
    await assert.rejects(c.credits.balance(), (e: unknown) => e instanceof AtelierError && e.status === 429 && e.code === 'RATE_LIMITED' && e.retryAfter === 0 && e.traceId === 'req_test');
    assert.equal(calls.length, 3);
  });

  test('GET retries a 503 with Retry-After and network errors', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { fetch, calls } = scripted(['network', { status: 503, headers: { 'retry-after': '0' } }, ok(balance)]);
    const c = new Atelier({ apiKey: 'gx_k', baseUrl: 'http://api.test', fetch });
    const answer = c.credits.balance();
    await settle();
    assert.equal(calls.length, 1);
    t.mock.timers.tick(124);
    await settle();
    assert.equal(calls.length, 1, 'the first backoff is at least half of 250 ms');
    t.mock.timers.tick(126); // 250 ms: the longest first backoff
    await settle();
    assert.equal(calls.length, 2);
    t.mock.timers.tick(0); // Retry-After: 0
    await settle();
    assert.equal(calls.length, 3);
    assert.deepEqual(await answer, balance);
  });

  test('a permanent failure is not retried: 503 MODEL_UNAVAILABLE without Retry-After, 500, 502, 504', async () => {
    for (const status of [503, 500, 502, 504]) {
      const { fetch, calls } = scripted([{ status, body: { error: 'x', message: 'x', code: status === 503 ? 'MODEL_UNAVAILABLE' : 'INTERNAL', traceId: 'req_t' } }]);
      const c = new Atelier({ apiKey: 'gx_k', baseUrl: 'http://api.test', fetch });
      await assert.rejects(c.credits.balance(), (e: unknown) => e instanceof AtelierError && e.status === status);
      assert.equal(calls.length, 1, `${status} was sent once`);
    }
    // Even a create carrying an Idempotency-Key: the answer would be the same.
    const { fetch, calls } = scripted([{ status: 503, body: { error: 'x', message: 'x', code: 'MODEL_UNAVAILABLE', traceId: 'req_t' } }]);
    const c = new Atelier({ apiKey: 'gx_k', baseUrl: 'http://api.test', fetch });
    await assert.rejects(c.runModel('sfxr_sound_effects', { input: {} }), (e: unknown) => e instanceof AtelierError && e.code === 'MODEL_UNAVAILABLE');
    assert.equal(calls.length, 1);
  });

  test('a POST without Idempotency-Key is not retried on 5xx or a lost connection', async () => {
    for (const failure of [{ status: 502 }, 'network'] as Step[]) {
      const { fetch, calls } = scripted([failure]);
      const c = new Atelier({ apiKey: 'gx_k', baseUrl: 'http://api.test', fetch });
      await assert.rejects(c.workflows.quickCreate({ name: 'x' }), (e: unknown) => e instanceof AtelierError && (failure === 'network' ? e.code === 'NETWORK_ERROR' && e.status === 0 : e.status === 502));
      assert.equal(calls.length, 1);
    }
  });

  test('a POST without Idempotency-Key is still retried on 429 (refused before any work)', async () => {
    const wf = { id: 'wf_1' };
    const { fetch, calls } = scripted([{ status: 429, headers: { 'retry-after': '0' } }, { status: 201, body: wf }]);
    const c = new Atelier({ apiKey: 'gx_k', baseUrl: 'http://api.test', fetch });
    assert.deepEqual(await c.workflows.quickCreate({ name: 'x' }), wf);
    assert.equal(calls.length, 2);
  });

  test('runModel sends a generated Idempotency-Key and retries a temporary 503 with the same key', async () => {
    const { fetch, calls } = scripted([{ status: 503, headers: { 'retry-after': '0' } }, 'network', { status: 202, body: created }]);
    const c = new Atelier({ apiKey: 'gx_k', baseUrl: 'http://api.test', fetch });
    const h = await c.runModel('sfxr_sound_effects', { subModelId: 'sfxr-jump', input: { seed: 1 }, cancelAfter: '5m' });
    assert.equal(h.runId, 'run_1');
    assert.equal(calls.length, 3);
    const keys = new Set(calls.map((x) => x.headers['idempotency-key']));
    assert.equal(keys.size, 1);
    assert.match([...keys][0]!, /^sdk-[0-9a-f-]{36}$/);
    assert.equal(calls[0]!.headers['cancel-after'], '5m');
    assert.equal(calls[0]!.url, 'http://api.test/v1/nodes/sfxr_sound_effects/run');
  });

  test('runWorkflow keeps a caller key', async () => {
    const { fetch, calls } = scripted([{ status: 503, headers: { 'retry-after': '0' } }, { status: 202, body: created }]);
    const c = new Atelier({ apiKey: 'gx_k', baseUrl: 'http://api.test', fetch });
    await c.runWorkflow('sound-scene', { values: {}, idempotencyKey: 'mine' });
    assert.deepEqual(calls.map((x) => x.headers['idempotency-key']), ['mine', 'mine']);
  });

  test('4xx other than 429 is never retried; a non-JSON error keeps its status', async () => {
    const { fetch, calls } = scripted([{ status: 400, body: { error: 'bad', message: 'bad', code: 'VALIDATION_ERROR', traceId: 'req_1', details: [{ path: 'body.x', message: 'no' }] } }]);
    const c = new Atelier({ apiKey: 'gx_k', baseUrl: 'http://api.test', fetch });
    await assert.rejects(c.credits.balance(), (e: unknown) => e instanceof AtelierError && e.code === 'VALIDATION_ERROR' && e.details?.[0]?.path === 'body.x');
    assert.equal(calls.length, 1);

    const html = new Atelier({ apiKey: 'gx_k', baseUrl: 'http://api.test', maxRetries: 0, fetch: async () => new Response('<h1>Bad gateway</h1>', { status: 502 }) });
    await assert.rejects(html.credits.balance(), (e: unknown) => e instanceof AtelierError && e.status === 502 && e.code === 'HTTP_502');
  });

  test('an attempt that exceeds timeoutMs fails with TIMEOUT', async () => {
    const hang = (_u: string, init?: RequestInit) => new Promise<Response>((_, reject) => init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
    const c = new Atelier({ apiKey: 'gx_k', baseUrl: 'http://api.test', fetch: hang, timeoutMs: 50, maxRetries: 0 });
    await assert.rejects(c.credits.balance(), (e: unknown) => e instanceof AtelierError && e.code === 'TIMEOUT');
  });

  test('wait() polls until a terminal status, at growing intervals, and honours its own timeout', async (t) => {
    const running = { id: 'run_1', status: 'RUNNING' };
    const { fetch, calls } = scripted([{ status: 202, body: created }, ok(running), ok(running), ok({ id: 'run_1', status: 'COMPLETED' })]);
    const c = new Atelier({ apiKey: 'gx_k', baseUrl: 'http://api.test', fetch });
    const h = await c.runModel('x', { input: {} });
    const seen: string[] = [];
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    const done = h.wait({ onProgress: (r) => seen.push(r.status) });
    // The polls' spacing on the mock clock: 100 ms, then 150 ms.
    for (const [gap, pollsAfter] of [[100, 3], [150, 4]] as const) {
      await settle();
      t.mock.timers.tick(gap - 1);
      await settle();
      assert.equal(calls.length, pollsAfter - 1, `polled again before ${gap} ms`);
      t.mock.timers.tick(1);
      await settle();
      assert.equal(calls.length, pollsAfter);
    }
    const run = await done;
    assert.equal(run.status, 'COMPLETED');
    assert.deepEqual(seen, ['RUNNING', 'RUNNING', 'COMPLETED']);
    t.mock.timers.reset();

    const stuck = scripted([{ status: 202, body: created }, ...Array.from({ length: 20 }, () => ok(running))]);
    const c2 = new Atelier({ apiKey: 'gx_k', baseUrl: 'http://api.test', fetch: stuck.fetch });
    await assert.rejects((await c2.runModel('x', { input: {} })).wait({ timeoutMs: 250 }), (e: unknown) => e instanceof AtelierError && e.code === 'WAIT_TIMEOUT');
  });

  test('policy helpers', () => {
    assert.equal(parseRetryAfter('7'), 7);
    assert.equal(parseRetryAfter(null), undefined);
    assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 4_000), 6);
    assert.equal(isRetryable('POST', false, 500), false);
    assert.equal(isRetryable('POST', true, 500), false);
    assert.equal(isRetryable('POST', true, 503), false);
    assert.equal(isRetryable('POST', true, 503, 1), true);
    assert.equal(isRetryable('GET', false, 503, 0), true);
    assert.equal(isRetryable('DELETE', false, 'network'), true);
    assert.equal(isRetryable('GET', false, 404), false);
    for (let a = 0; a < 8; a++) {
      const d = backoffMs(a);
      const ceiling = Math.min(8000, 250 * 2 ** a);
      assert.ok(d >= ceiling / 2 && d <= ceiling, `${a}: ${d}`);
    }
  });
});
