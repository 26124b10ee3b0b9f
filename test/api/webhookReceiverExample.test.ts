import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitForStatus } from '../helpers/poll.js';
import { freePort } from '../helpers/processes.js';

// The README's receiver example, run as a real process: it must verify, answer 200, process, and de-duplicate.
const EXAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples/webhook-receiver.ts');
let srv: TestServer;
let child: ChildProcess | undefined;
before(async () => {
  srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' });
});
after(async () => {
  child?.kill('SIGKILL');
  await srv.close();
});

test('examples/webhook-receiver.ts verifies deliveries, handles each once and rejects forgeries', async () => {
  const u = await srv.user();
  const secret = (await srv.request('GET', '/v1/webhooks/secret', { key: u.key })).body.secret;
  const port = await freePort();
  let out = '';
  child = spawn(process.execPath, ['--import', 'tsx', EXAMPLE], { env: { ...process.env, ATELIER_WEBHOOK_SECRET: secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 20_000;
  while (!out.includes('receiving webhooks')) {
    assert.ok(Date.now() < deadline, `receiver did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const r = await srv.request('POST', '/v1/nodes/sfxr_sound_effects/run', { key: u.key, body: { subModelId: 'sfxr-jump', input: {}, webhook: { url: `http://127.0.0.1:${port}/hooks` } } });
  await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED']);
  while (!out.includes(`run.completed for ${r.body.runId}`)) {
    assert.ok(Date.now() < deadline + 20_000, `no run.completed processed: ${out}`);
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.ok(out.includes(`run.started for ${r.body.runId}`));
  // A replay carries the same webhook-id: answered 200 but not processed twice.
  // The receiver prints before it answers, and the deliverer records the answer after: poll for the log.
  let log: { status: string; eventType: string; eventId: string }[] = [];
  for (const until = Date.now() + 20_000; ;) {
    log = (await srv.request('GET', `/v1/webhooks/deliveries?runId=${r.body.runId}`, { key: u.key })).body.items;
    if (log.length >= 2 && log.every((d) => d.status === 'delivered')) break;
    assert.ok(Date.now() < until, `deliveries not all recorded as delivered: ${JSON.stringify(log)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
  const completed = log.find((d) => d.eventType === 'run.completed')!;
  await srv.request('POST', `/v1/webhooks/deliveries/${completed.eventId}/replay`, { key: u.key });
  await new Promise((res) => setTimeout(res, 1000));
  assert.equal(out.split(`run.completed for ${r.body.runId}`).length - 1, 1, 'processed once');
  // A forged delivery is answered 400.
  const forged = await fetch(`http://127.0.0.1:${port}/hooks`, {
    method: 'POST', body: '{"type":"run.completed"}',
    headers: { 'content-type': 'application/json', 'webhook-id': 'evt_x', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
  });
  assert.equal(forged.status, 400);
});
