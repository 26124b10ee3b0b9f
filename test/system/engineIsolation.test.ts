import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { balance, waitForStatus } from '../helpers/poll.js';
import { NO_PORTRAIT, portraitUrl } from '../engines/image/fixtures.js';

/** The reproductions of issue 14, each against a whole service whose engines run in child processes. */
let srv: TestServer;
before(async () => {
  // A short idle time, so a pool's children exit between runs within the test.
  srv = await startTestServer({ ATELIER_ENGINE_IDLE_MS: '1000' });
});
after(async () => {
  await srv.close();
});

async function healthy(): Promise<boolean> {
  const res = await fetch(`${srv.url}/healthz`, { signal: AbortSignal.timeout(15_000) }).catch(() => undefined);
  return res?.status === 200;
}

const run = async (key: string, nodeType: string, input: Record<string, unknown>) => {
  const r = await srv.request('POST', `/v1/nodes/${nodeType}/run`, { key, body: { input } });
  assert.equal(r.status, 202, r.text);
  return r.body.runId as string;
};

describe('one tenant cannot stall or break the service', () => {
  test('markdown_to_html on 199,395 characters of growing backtick runs leaves /healthz answering', async () => {
    const u = await srv.user();
    let text = '';
    for (let k = 1; k <= 630; k++) text += '`'.repeat(k) + 'a';
    assert.equal(text.length, 199_395);
    const id = await run(u.key, 'markdown_to_html', { text });
    assert.ok(await healthy(), '/healthz answers while the run is under way');
    const done = await waitForStatus(srv, u.key, `/v1/nodes/runs/${id}`, ['COMPLETED', 'FAILED'], 120_000);
    assert.equal(done.status, 'COMPLETED', JSON.stringify(done).slice(0, 300));
  });

  test('text_template blown up to 250 MB ends OUTPUT_TOO_LARGE, charges nothing, and the service stays small', async () => {
    const u = await srv.user();
    const before = await balance(srv, u.key);
    const rss = process.memoryUsage().rss;
    const id = await run(u.key, 'text_template', { template: '{{text}}'.repeat(2500), text: 'a'.repeat(100_000) });
    const done = await waitForStatus(srv, u.key, `/v1/nodes/runs/${id}`, ['COMPLETED', 'FAILED'], 120_000);
    assert.equal(done.status, 'FAILED');
    assert.equal(done.errorCode, 'OUTPUT_TOO_LARGE');
    assert.match(done.error, /over this server's limit/);
    assert.equal(done.creditUsed, 0);
    assert.deepEqual((await balance(srv, u.key)).availableBalance, before.availableBalance);
    assert.ok(process.memoryUsage().rss - rss < 100 * 1024 * 1024, `the service grew by ${Math.round((process.memoryUsage().rss - rss) / 1e6)} MB`);
    assert.ok(await healthy());
  });

  test('an input over a field\'s documented length is 400 INPUT_TOO_LARGE at create', async () => {
    const u = await srv.user();
    const r = await srv.request('POST', '/v1/nodes/word_count/run', { key: u.key, body: { input: { text: 'a'.repeat(200_001) } } });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.code, 'INPUT_TOO_LARGE');
    assert.equal(r.body.details[0].path, 'body.input.text');
  });
});

describe('remove_background in its own process', { skip: NO_PORTRAIT }, () => {
  test('cancel mid-run leaves the service up and the next run completes; it still works after its pool idled out', async () => {
    const u = await srv.user();
    const input = { image_url: portraitUrl(), model: 'small' };
    const second = await run(u.key, 'remove_background', input);
    await waitForStatus(srv, u.key, `/v1/nodes/runs/${second}`, ['RUNNING', 'COMPLETED'], 60_000);
    const c = await srv.request('POST', `/v1/nodes/runs/${second}/cancel`, { key: u.key });
    assert.ok([200, 409].includes(c.status), c.text);
    assert.ok(await healthy(), 'the service is up after the cancel');

    const third = await run(u.key, 'remove_background', input);
    assert.equal((await waitForStatus(srv, u.key, `/v1/nodes/runs/${third}`, ['COMPLETED', 'FAILED'], 180_000)).status, 'COMPLETED');

    // Past the pool's idle time (1 s here) its child exits; the next run loads the model in a fresh one.
    await new Promise((r) => setTimeout(r, 3000));
    const fourth = await run(u.key, 'remove_background', input);
    const done = await waitForStatus(srv, u.key, `/v1/nodes/runs/${fourth}`, ['COMPLETED', 'FAILED'], 180_000);
    assert.equal(done.status, 'COMPLETED', done.error);
  });
});
