import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { Atelier, AtelierError } from '../../packages/sdk/src/index.js';

/** The SDK against a real server on a fresh database: every call goes over HTTP as a user's would. */
let srv: TestServer;
let client: Atelier;

before(async () => {
  srv = await startTestServer();
  const { key } = await srv.user();
  client = new Atelier({ apiKey: key, baseUrl: srv.url });
});
after(async () => srv?.close());

const rejectsWith = async (p: Promise<unknown>, status: number, code: string): Promise<AtelierError> => {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof AtelierError, `not an AtelierError: ${e}`);
    assert.equal(e.status, status, e.message);
    assert.equal(e.code, code);
    assert.match(e.traceId ?? '', /^req_/);
    assert.ok(e.message.length > 0);
    return e;
  }
  assert.fail(`expected ${status} ${code}`);
};

describe('discovery and pricing', () => {
  test('models list, search, catalog, schema, pricing', async () => {
    const models = await client.models.list();
    const sfxr = models.find((m) => m.nodeType === 'sfxr_sound_effects');
    assert.ok(sfxr && sfxr.available && sfxr.subModels?.some((s) => s.subModelId === 'sfxr-jump'));

    const found = await client.models.search('text-to-speech');
    assert.ok(found.modelCatalog && Object.values(found.modelCatalog).flat().some((e) => e.nodeType === 'espeak_tts'));
    assert.ok((await client.models.search('zzqqxx-nothing')).noMatch);

    const catalog = await client.models.catalog();
    assert.ok(catalog.version === 1 && Object.keys(catalog.models).length > 0 && catalog.models.sfxr_sound_effects!.defaultSubModelId);

    const schema = await client.models.schema('sfxr-jump');
    assert.equal(schema.nodeType, 'sfxr_sound_effects');
    assert.ok(schema.fields.some((f) => f.name === 'seed'));

    const pricing = await client.models.pricing('espeak_tts');
    assert.equal(pricing.nodeType, 'espeak_tts');
    assert.ok(typeof pricing.rule.kind === 'string' && pricing.summary.length > 0);
  });

  test('node and workflow estimates, balance and ledger', async () => {
    const one = await client.estimates.node({ nodeType: 'espeak_tts', data: { text: 'Hello from Atelier.' } });
    assert.equal(one.estimates.length, 1);
    assert.equal(one.totalMicrocredits, one.estimates[0]!.microcredits);
    const wf = await client.estimates.workflow([{ type: 'espeak_tts', data: { text: 'a' } }, { type: 'sfxr_sound_effects', subModelId: 'sfxr-jump' }]);
    assert.equal(wf.estimates.length, 2);
    assert.equal(wf.totalMicrocredits, wf.estimates.reduce((s, e) => s + e.microcredits, 0));

    const balance = await client.credits.balance();
    assert.equal(balance.availableBalance, 10_000_000);
    assert.equal(balance.formatted, '10.00M');
    const ledger = await client.credits.ledger({ limit: 5 });
    assert.ok(ledger.items.some((i) => i.kind === 'grant' || i.microcredits === 10_000_000));
  });
});

describe('runs', () => {
  test('runModel(...).wait() reaches COMPLETED with a downloadable WAV, and its events stream', async () => {
    const seen: string[] = [];
    const handle = await client.runModel('sfxr_sound_effects', { subModelId: 'sfxr-jump', input: { seed: 1 } });
    assert.match(handle.runId, /^run_/);
    assert.equal(handle.status, 'QUEUED');
    const run = await handle.wait({ timeoutMs: 30_000, onProgress: (r) => seen.push(r.status) });
    assert.equal(run.status, 'COMPLETED', run.error ?? '');
    assert.equal(seen.at(-1), 'COMPLETED');
    assert.equal(run.creditUsed, handle.estimatedCredits);
    assert.equal(run.files.length, 1);
    assert.equal(run.files[0]!.contentType, 'audio/wav');

    for (const source of [run.files[0]!.url, run.files[0]!.id]) {
      const file = await client.files.download(source);
      assert.equal(file.contentType, 'audio/wav');
      assert.equal(file.bytes.length, run.files[0]!.bytes);
      assert.equal(Buffer.from(file.bytes.subarray(0, 4)).toString('ascii'), 'RIFF');
      assert.equal(Buffer.from(file.bytes.subarray(8, 12)).toString('ascii'), 'WAVE');
    }

    const events = [];
    for await (const e of client.nodeRuns.events(run.id)) events.push(e);
    assert.deepEqual(events.map((e) => e.event), ['run.started', 'run.completed']);
    assert.equal(events[1]!.data.runId, run.id);

    const listed = await client.nodeRuns.list({ limit: 10 });
    assert.ok(listed.items.some((r) => r.id === run.id));
    const again = await client.nodeRuns.cancel(run.id);
    assert.equal(again.status, 'COMPLETED', 'cancelling a finished run leaves it as it was');
  });

  test('the same idempotency key gives the same run', async () => {
    const a = await client.runModel('sfxr_sound_effects', { subModelId: 'sfxr-jump', input: { seed: 2 }, idempotencyKey: 'sdk-same' });
    const b = await client.runModel('sfxr_sound_effects', { subModelId: 'sfxr-jump', input: { seed: 2 }, idempotencyKey: 'sdk-same' });
    assert.equal(a.runId, b.runId);
    await a.wait({ timeoutMs: 30_000 });
  });

  test('a workflow built node by node runs to COMPLETED; duplicate, update, cache, list, batch, delete', async () => {
    const wf = await client.workflows.quickCreate({ name: 'SDK speech', requestFields: [{ name: 'text', type: 'text' }] });
    assert.ok(wf.requestNodeId && wf.responseNodeId);
    const tts = await client.workflows.addNode(wf.id, { nodeType: 'espeak_tts', column: 1 });
    assert.ok(tts.inputPorts.includes('in:text'));
    const e1 = await client.workflows.addEdge(wf.id, { sourceNodeId: wf.requestNodeId, sourceHandle: 'text', targetNodeId: tts.nodeId, targetHandle: 'in:text' });
    assert.equal(e1.dataTypes.source, 'text');
    await client.workflows.addEdge(wf.id, { sourceNodeId: tts.nodeId, sourceHandle: 'out:result', targetNodeId: wf.responseNodeId, targetHandle: 'result' });
    const updated = await client.workflows.updateNode(wf.id, tts.nodeId, { label: 'Speak' });
    assert.equal(updated.nodeId, tts.nodeId);

    // A throwaway node and edge to exercise the deletes.
    const extra = await client.workflows.addNode(wf.id, { nodeType: 'word_count', column: 1, row: 1 });
    const extraEdge = await client.workflows.addEdge(wf.id, { sourceNodeId: wf.requestNodeId, sourceHandle: 'text', targetNodeId: extra.nodeId, targetHandle: 'in:text' });
    await client.workflows.deleteEdge(wf.id, extraEdge.edgeId);
    await client.workflows.deleteNode(wf.id, extra.nodeId);
    const full = await client.workflows.get(wf.id);
    assert.equal(full.nodes.length, 3);
    assert.equal(full.edges.length, 2);

    const estimate = await client.estimates.workflow(full.nodes.map((n) => ({ type: n.type, data: n.data, subModelId: n.subModelId })));
    const handle = await client.runWorkflow(wf.id, { values: { [wf.requestNodeId]: { text: 'Hello from the SDK.' } } });
    const run = await handle.wait({ timeoutMs: 60_000 });
    assert.equal(run.status, 'COMPLETED', JSON.stringify(run.nodeRuns));
    assert.equal(run.estimatedCredits, estimate.totalMicrocredits);
    assert.ok(run.nodeRuns.some((n) => n.nodeType === 'espeak_tts' && n.status === 'COMPLETED'));
    assert.ok(JSON.stringify(run.outputs).includes('/v1/files/'));

    const batch = await client.runs.batch([run.id, 'run_unknown']);
    assert.deepEqual(batch.runs.map((r) => r.id), [run.id]);
    assert.ok((await client.runs.list({ workflowId: wf.id })).items.some((r) => r.id === run.id));
    assert.ok((await client.workflows.clearCache(wf.id)).cleared >= 1);

    const renamed = await client.workflows.update(wf.id, { name: 'SDK speech 2' });
    assert.equal(renamed.name, 'SDK speech 2');
    const copy = await client.workflows.duplicate(wf.id);
    assert.equal(copy.name, 'SDK speech 2 (copy)');
    assert.ok((await client.workflows.list({ search: 'SDK speech' })).items.length >= 2);
    await client.workflows.delete(copy.id);
    await rejectsWith(client.workflows.get(copy.id), 404, 'NOT_FOUND');

    const system = await client.systemWorkflows();
    assert.ok(system.items.some((s) => s.slug === 'sound-scene'));
  });

  test('webhook secret, rotation and deliveries', async () => {
    const { secret } = await client.webhooks.secret();
    assert.match(secret, /^whsec_/);
    const rotated = await client.webhooks.rotateSecret();
    assert.notEqual(rotated.secret, secret);
    const page = await client.webhooks.deliveries({ limit: 5 });
    assert.ok(Array.isArray(page.items));
    await rejectsWith(client.webhooks.replay('evt_unknown'), 404, 'NOT_FOUND');
  });
});

describe('typed errors', () => {
  test('401 with a bad key, not retried', async () => {
    let calls = 0;
    const bad = new Atelier({ apiKey: 'gx_nope', baseUrl: srv.url, fetch: (u, i) => (calls++, fetch(u, i)) });
    await rejectsWith(bad.credits.balance(), 401, 'UNAUTHORIZED');
    assert.equal(calls, 1);
  });

  test('400 with details, 404 for unknown things', async () => {
    const e = await rejectsWith(client.runs.batch([]), 400, 'VALIDATION_ERROR');
    assert.ok(e.details && e.details.length > 0 && typeof e.details[0]!.path === 'string');
    const bad = await rejectsWith(client.runModel('sfxr_sound_effects', { subModelId: 'sfxr-jump', input: { seed: 'not a number' } }), 400, 'VALIDATION_ERROR');
    assert.ok(bad.details?.some((d) => d.path.includes('seed')), JSON.stringify(bad.details));
    await rejectsWith(client.models.schema('no_such_model'), 404, 'MODEL_NOT_FOUND');
    await rejectsWith(client.nodeRuns.get('run_nope'), 404, 'NOT_FOUND');
  });

  test('429 RATE_LIMITED with Retry-After when retries are off', async () => {
    const { key } = await srv.user({ perMinute: 1 });
    const limited = new Atelier({ apiKey: key, baseUrl: srv.url, maxRetries: 0 });
    await limited.credits.balance();
    const e = await rejectsWith(limited.credits.balance(), 429, 'RATE_LIMITED');
    assert.ok(e.retryAfter !== undefined && e.retryAfter > 0 && e.retryAfter <= 60, String(e.retryAfter));
  });
});
