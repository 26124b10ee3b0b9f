import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { balance, waitForStatus } from '../helpers/poll.js';
import { slowRunBody } from '../helpers/slowRun.js';

let srv: TestServer;
before(async () => {
  srv = await startTestServer();
});
after(async () => {
  await srv.close();
});

const SFX = { path: '/v1/nodes/sfxr_sound_effects/run', body: { subModelId: 'sfxr-laser-shoot', input: { seed: 7 } } };

async function ledger(key: string) {
  return (await srv.request('GET', '/v1/credits/ledger?limit=200', { key })).body.items as Array<{ kind: string; microcredits: number; reservedMicrocredits: number; runId: string | null }>;
}

describe('a local model run end to end', () => {
  test('QUEUED → RUNNING → COMPLETED with a real WAV, charged exactly the estimate', async () => {
    const u = await srv.user();
    const est = await srv.request('POST', '/v1/nodes/estimate-credits', { key: u.key, body: { nodeType: 'sfxr_sound_effects', subModelId: 'sfxr-laser-shoot', data: SFX.body.input } });
    const price = est.body.estimates[0].microcredits;
    assert.ok(price > 0);
    const before = await balance(srv, u.key);

    const created = await srv.request('POST', SFX.path, { key: u.key, body: SFX.body });
    assert.equal(created.status, 202, created.text);
    assert.match(created.body.runId, /^run_/);
    assert.equal(created.body.status, 'QUEUED');
    assert.equal(created.body.estimatedCredits, price);

    const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${created.body.runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(run.status, 'COMPLETED', run.error);
    assert.equal(run.creditUsed, price);
    assert.ok(run.startedAt && run.finishedAt && run.createdAt);
    assert.equal(run.output.result.length, 1);
    assert.equal(run.files[0].contentType, 'audio/wav');
    assert.ok(run.files[0].durationSeconds > 0);

    // The signed URL downloads without a key; the bytes are a WAV.
    const dl = await fetch(run.output.result[0]);
    assert.equal(dl.status, 200);
    const bytes = Buffer.from(await dl.arrayBuffer());
    assert.equal(bytes.subarray(0, 4).toString(), 'RIFF');
    assert.equal(bytes.subarray(8, 12).toString(), 'WAVE');
    assert.equal(Number(dl.headers.get('content-length')), bytes.length);
    assert.equal(run.files[0].bytes, bytes.length);

    const afterB = await balance(srv, u.key);
    assert.equal(afterB.availableBalance, before.availableBalance - price);
    assert.equal(afterB.reservedMicrocredits, 0);
    const rows = (await ledger(u.key)).filter((r) => r.runId === run.id);
    assert.deepEqual(rows.map((r) => r.kind).sort(), ['capture', 'reserve']);
    assert.equal(rows.find((r) => r.kind === 'capture')!.microcredits, -price);
  });

  test('files: owner key works, ranges work, others get 404, tampered links 401', async () => {
    const u = await srv.user();
    const created = await srv.request('POST', SFX.path, { key: u.key, body: SFX.body });
    const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${created.body.runId}`, ['COMPLETED']);
    const file = run.files[0];
    const own = await fetch(`${srv.url}/v1/files/${file.id}`, { headers: { authorization: `Bearer ${u.key}` } });
    assert.equal(own.status, 200);
    assert.equal(own.headers.get('content-type'), 'audio/wav');
    const part = await fetch(`${srv.url}/v1/files/${file.id}`, { headers: { authorization: `Bearer ${u.key}`, range: 'bytes=0-11' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 0-11/${file.bytes}`);
    assert.equal(Buffer.from(await part.arrayBuffer()).subarray(8, 12).toString(), 'WAVE');
    const bad = await fetch(`${srv.url}/v1/files/${file.id}`, { headers: { authorization: `Bearer ${u.key}`, range: `bytes=${file.bytes + 10}-` } });
    assert.equal(bad.status, 416);

    const other = await srv.user();
    expectErrorBody(await srv.request('GET', `/v1/files/${file.id}`, { key: other.key }), 404, 'NOT_FOUND');
    expectErrorBody(await srv.request('GET', `/v1/nodes/runs/${run.id}`, { key: other.key }), 404, 'NOT_FOUND');
    const tampered = file.url.replace(/sig=[^&]+/, 'sig=AAAA');
    assert.equal((await fetch(tampered)).status, 401);
    expectErrorBody(await srv.request('GET', `/v1/files/${file.id}`), 401, 'UNAUTHORIZED');
  });

  test('Prefer: wait returns the finished run in the create answer', async () => {
    const u = await srv.user();
    const r = await srv.request('POST', SFX.path, { key: u.key, body: SFX.body, headers: { prefer: 'wait=30' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'COMPLETED');
    assert.equal(r.body.runId, r.body.id);
    assert.ok(r.body.output.result[0].startsWith('http'));
  });
});

describe('refusals cost nothing', () => {
  test('not enough credits → 403 INSUFFICIENT_CREDITS, nothing queued or reserved', async () => {
    const u = await srv.user({ microcredits: 1n });
    const r = await srv.request('POST', SFX.path, { key: u.key, body: SFX.body });
    expectErrorBody(r, 403, 'INSUFFICIENT_CREDITS');
    const b = await balance(srv, u.key);
    assert.equal(b.availableBalance, 1);
    assert.equal(b.reservedMicrocredits, 0);
    assert.equal((await srv.request('GET', '/v1/nodes/runs', { key: u.key })).body.items.length, 0);
    const reserves = (await srv.services.db.query(`SELECT count(*)::int AS n FROM ledger_entries WHERE account_id = $1 AND kind = 'reserve'`, [u.accountId])).rows[0].n;
    assert.equal(reserves, 0, 'a refused reservation writes no ledger row');
  });

  test('bad requests are 4xx naming the problem', async () => {
    const u = await srv.user();
    expectErrorBody(await srv.request('POST', '/v1/nodes/no_such_model/run', { key: u.key, body: { input: {} } }), 404, 'MODEL_NOT_FOUND');
    // A multi-mode model without subModelId runs its default mode (hosted-compat.md; test/compat/models.test.ts); a mode it lacks is refused.
    let b = expectErrorBody(await srv.request('POST', SFX.path, { key: u.key, body: { subModelId: 'sfxr-nope', input: {} } }), 400, 'VALIDATION_ERROR');
    assert.equal(b.details[0].path, 'subModelId');
    b = expectErrorBody(await srv.request('POST', SFX.path, { key: u.key, body: { subModelId: 'sfxr-laser-shoot', input: { seed: 'x' } } }), 400, 'VALIDATION_ERROR');
    assert.equal(b.details[0].path, 'body.input.seed');
    b = expectErrorBody(await srv.request('POST', '/v1/nodes/espeak_tts/run', { key: u.key, body: { input: {} } }), 400, 'VALIDATION_ERROR');
    assert.equal(b.details[0].path, 'body.input.text');
    b = expectErrorBody(await srv.request('POST', SFX.path, { key: u.key, body: { ...SFX.body, extra: 1 } }), 400, 'VALIDATION_ERROR');
    b = expectErrorBody(await srv.request('POST', SFX.path, { key: u.key, body: { ...SFX.body, webhook: { url: 'ftp://x' } } }), 400, 'VALIDATION_ERROR');
    assert.equal(b.details[0].path, 'body.webhook.url');
    b = expectErrorBody(await srv.request('POST', SFX.path, { key: u.key, body: { ...SFX.body, webhook: { url: 'https://example.com/h', events: ['node.completed'] } } }), 400, 'VALIDATION_ERROR');
    assert.equal(b.details[0].path, 'body.webhook.events[0]');
    expectErrorBody(await srv.request('POST', SFX.path, { key: u.key, body: SFX.body, headers: { 'cancel-after': 'soon' } }), 400, 'VALIDATION_ERROR');
    expectErrorBody(await srv.request('POST', SFX.path, { key: u.key, body: SFX.body, headers: { prefer: 'wait=99' } }), 400, 'VALIDATION_ERROR');
    expectErrorBody(await srv.request('GET', '/v1/nodes/runs/run_doesnotexist', { key: u.key }), 404, 'NOT_FOUND');
    expectErrorBody(await srv.request('GET', '/v1/nodes/runs?cursor=zzz', { key: u.key }), 400, 'VALIDATION_ERROR');
    assert.equal((await balance(srv, u.key)).reservedMicrocredits, 0);
  });

  test('a deprecated model is refused with 410 naming its replacement', async () => {
    const u = await srv.user();
    const dep = (await srv.request('GET', '/v1/nodes/deprecated-models', { key: u.key })).body.items[0];
    if (!dep) return; // catalog without retired models
    const r = await srv.request('POST', `/v1/nodes/${dep.nodeType}/run`, { key: u.key, body: { input: { prompt: 'x' } } });
    const b = expectErrorBody(r, 410, 'MODEL_DEPRECATED');
    assert.ok(b.message.includes(dep.replacement));
  });
});

describe('idempotency', () => {
  test('same key and body → the same run, charged once; other body → 409', async () => {
    const u = await srv.user();
    const headers = { 'idempotency-key': `k-${Date.now()}` };
    const results = await Promise.all(Array.from({ length: 5 }, () => srv.request('POST', SFX.path, { key: u.key, body: SFX.body, headers })));
    const ids = new Set(results.map((r) => r.body.runId));
    assert.equal(ids.size, 1, JSON.stringify(results.map((r) => r.body)));
    for (const r of results) assert.equal(r.status, 202);
    const [runId] = [...ids];
    await waitForStatus(srv, u.key, `/v1/nodes/runs/${runId}`, ['COMPLETED']);
    const again = await srv.request('POST', SFX.path, { key: u.key, body: SFX.body, headers });
    assert.equal(again.body.runId, runId);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    expectErrorBody(await srv.request('POST', SFX.path, { key: u.key, body: { ...SFX.body, input: { seed: 8 } }, headers }), 409, 'CONFLICT');
    const reserves = (await ledger(u.key)).filter((r) => r.kind === 'reserve');
    assert.equal(reserves.length, 1);
    // Keys are per account: another account may use the same key.
    const other = await srv.user();
    const theirs = await srv.request('POST', SFX.path, { key: other.key, body: SFX.body, headers });
    assert.notEqual(theirs.body.runId, runId);
  });
});

describe('failure, cancel and deadlines refund', () => {
  test('an engine failure ends FAILED with the reason and refunds the hold', async () => {
    const u = await srv.user();
    const before = await balance(srv, u.key);
    const r = await srv.request('POST', '/v1/nodes/espeak_tts/run', { key: u.key, body: { input: { text: 'hello' } } });
    assert.equal(r.status, 202, r.text);
    // Make this run fail for real: point it at an engine input it cannot read.
    const bad = await srv.request('POST', '/v1/nodes/transcribe_audio/run', { key: u.key, body: { input: { audio_url: 'data:audio/wav;base64,AAAA' } } });
    if (bad.status === 503) return; // pocketsphinx absent here: covered where it is installed
    assert.equal(bad.status, 202, bad.text);
    const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${bad.body.runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(run.status, 'FAILED');
    assert.ok(run.error.length > 0);
    assert.equal(run.creditUsed, 0);
    await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED']);
    const rows = (await ledger(u.key)).filter((x) => x.runId === run.id).map((x) => x.kind).sort();
    assert.deepEqual(rows, ['release', 'reserve']);
    const afterB = await balance(srv, u.key);
    assert.equal(afterB.availableBalance, before.availableBalance - r.body.estimatedCredits);
  });

  test('cancel while RUNNING aborts the engine and refunds', async () => {
    const u = await srv.user();
    const before = await balance(srv, u.key);
    const slow = await slowRunBody();
    const r = await srv.request('POST', slow.path, { key: u.key, body: slow.body });
    assert.equal(r.status, 202, r.text);
    const running = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['RUNNING', 'COMPLETED']);
    assert.equal(running.status, 'RUNNING', 'the long run should still be going');
    const c = await srv.request('POST', `/v1/nodes/runs/${r.body.runId}/cancel`, { key: u.key });
    assert.equal(c.status, 200);
    assert.equal(c.body.status, 'CANCELED');
    assert.equal(c.body.creditUsed, 0);
    assert.deepEqual(await balance(srv, u.key), before);
    // Canceling again changes nothing.
    assert.equal((await srv.request('POST', `/v1/nodes/runs/${r.body.runId}/cancel`, { key: u.key })).body.status, 'CANCELED');
    // The worker is free again: a new run completes.
    const next = await srv.request('POST', SFX.path, { key: u.key, body: SFX.body, headers: { prefer: 'wait=30' } });
    assert.equal(next.body.status, 'COMPLETED');
  });

  test('Cancel-After cancels a run at its deadline and refunds', async () => {
    const u = await srv.user();
    const before = await balance(srv, u.key);
    const slow = await slowRunBody();
    const r = await srv.request('POST', slow.path, { key: u.key, body: slow.body, headers: { 'cancel-after': '1s' } });
    const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['CANCELED', 'COMPLETED', 'FAILED'], 30_000);
    assert.equal(run.status, 'CANCELED');
    assert.match(run.error, /Cancel-After/);
    assert.deepEqual(await balance(srv, u.key), before);
  });

  test('while RUNNING the run reports progress', async () => {
    const u = await srv.user();
    const slow = await slowRunBody();
    const r = await srv.request('POST', slow.path, { key: u.key, body: slow.body });
    const running = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['RUNNING']);
    assert.equal(typeof running.progress, 'number');
    await srv.request('POST', `/v1/nodes/runs/${r.body.runId}/cancel`, { key: u.key });
  });
});

describe('listing', () => {
  test('runs list newest first with a cursor', async () => {
    const u = await srv.user();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await srv.request('POST', SFX.path, { key: u.key, body: { ...SFX.body, input: { seed: i } } })).body.runId);
    const p1 = await srv.request('GET', '/v1/nodes/runs?limit=2', { key: u.key });
    assert.deepEqual(p1.body.items.map((r: { id: string }) => r.id), [ids[2], ids[1]]);
    const p2 = await srv.request('GET', `/v1/nodes/runs?limit=2&cursor=${p1.body.nextCursor}`, { key: u.key });
    assert.deepEqual(p2.body.items.map((r: { id: string }) => r.id), [ids[0]]);
    assert.equal(p2.body.nextCursor, null);
  });
});

describe('outbound URLs are guarded', () => {
  test('a webhook to a loopback or private address is refused unless the operator allows it', async () => {
    const u = await srv.user();
    for (const url of ['http://127.0.0.1:9/hook', 'https://10.1.2.3/hook', 'http://[::1]/hook', 'http://169.254.169.254/latest']) {
      const b = expectErrorBody(await srv.request('POST', SFX.path, { key: u.key, body: { ...SFX.body, webhook: { url } } }), 400, 'VALIDATION_ERROR');
      assert.equal(b.details[0].path, 'body.webhook.url');
    }
    assert.equal((await balance(srv, u.key)).reservedMicrocredits, 0);
  });

  test('a media input on a private address fails the run with the reason and refunds it', async () => {
    const u = await srv.user();
    const before = await balance(srv, u.key);
    const r = await srv.request('POST', '/v1/nodes/resize_image/run', { key: u.key, body: { input: { image_url: 'https://127.0.0.1/secret.png', width: 10 } } });
    assert.equal(r.status, 202, r.text);
    const run = await waitForStatus(srv, u.key, `/v1/nodes/runs/${r.body.runId}`, ['COMPLETED', 'FAILED']);
    assert.equal(run.status, 'FAILED');
    assert.match(run.error, /loopback|not allowed|refused/i);
    assert.deepEqual(await balance(srv, u.key), before);
  });

  test('an unconfigured remote model is 503 MODEL_UNAVAILABLE and costs nothing', async () => {
    const u = await srv.user();
    const before = await balance(srv, u.key);
    const r = await srv.request('POST', '/v1/nodes/flux_2_pro/run', { key: u.key, body: { input: { prompt: 'a lighthouse' } } });
    const b = expectErrorBody(r, 503, 'MODEL_UNAVAILABLE');
    assert.match(b.message, /FAL_KEY|REPLICATE_API_TOKEN|OPENAI|COMFYUI/);
    assert.deepEqual(await balance(srv, u.key), before);
    const listed = (await srv.request('GET', '/v1/models', { key: u.key })).body.find((m: { nodeType: string }) => m.nodeType === 'flux_2_pro');
    assert.equal(listed.available, false);
  });
});

describe('artifact retention', () => {
  test('expired files are deleted with their blobs and their links stop working', async () => {
    const u = await srv.user();
    const r = await srv.request('POST', SFX.path, { key: u.key, body: { ...SFX.body, input: { seed: 4242 } }, headers: { prefer: 'wait=30' } });
    const file = r.body.files[0];
    const sha = (await srv.services.db.query('SELECT sha256 FROM files WHERE id = $1', [file.id])).rows[0].sha256;
    assert.ok(await srv.services.files.blobs.has(sha));
    await srv.services.db.query(`UPDATE files SET expires_at = now() - interval '1 second' WHERE id = $1`, [file.id]);
    const swept = await srv.services.files.sweep();
    assert.ok(swept.files >= 1);
    assert.equal(await srv.services.files.blobs.has(sha), false);
    expectErrorBody(await srv.request('GET', `/v1/files/${file.id}`, { key: u.key }), 404, 'NOT_FOUND');
    assert.equal((await fetch(file.url)).status, 404);
  });
});
