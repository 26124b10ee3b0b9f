import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { expectErrorBody, startTestServer, type TestServer } from '../helpers/server.js';
import { balance, waitForStatus } from '../helpers/poll.js';
import { startReceiver } from '../helpers/receiver.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEST_ENGINES_MODULE } from '../helpers/testEngines.js';

let srv: TestServer;
let key: string;
let rx: Awaited<ReturnType<typeof startReceiver>>;
before(async () => {
  srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1', ATELIER_TEST_ENGINES_MODULE: TEST_ENGINES_MODULE });
  key = (await srv.user({ microcredits: 1_000_000_000n })).key;
  rx = await startReceiver();
});
after(async () => {
  await rx.close();
  await srv.close();
});
const req = (method: string, path: string, body?: unknown, k = key) => srv.request(method, path, { key: k, body });
const png = async (w = 320, h = 240) => `data:image/png;base64,${(await sharp({ create: { width: w, height: h, channels: 3, background: { r: 200, g: 120, b: 40 } } }).png().toBuffer()).toString('base64')}`;

/** quick-create + nodes + edges through the API, as a new user would. */
async function buildTextToWaveform(): Promise<{ id: string; requestNodeId: string; tts: string; wave: string; responseNodeId: string }> {
  const wf = await req('POST', '/v1/workflows/quick-create', { name: 'Speech to waveform', requestFields: [{ name: 'text', type: 'text' }] });
  assert.equal(wf.status, 201, wf.text);
  const tts = await req('POST', `/v1/workflows/${wf.body.id}/nodes`, { nodeType: 'espeak_tts', column: 1 });
  assert.equal(tts.status, 201, tts.text);
  assert.ok(tts.body.inputPorts.includes('in:text') && tts.body.outputPorts.includes('out:result'));
  const wave = await req('POST', `/v1/workflows/${wf.body.id}/nodes`, { nodeType: 'waveform_video', column: 2, inputs: { style: 'bars' } });
  assert.equal(wave.status, 201, wave.text);
  assert.ok(wave.body.position.x > tts.body.position.x, 'column 2 sits right of column 1');
  for (const [s, sh, t, th] of [[wf.body.requestNodeId, 'text', tts.body.nodeId, 'in:text'], [tts.body.nodeId, 'out:result', wave.body.nodeId, 'in:audio_url'], [wave.body.nodeId, 'out:result', wf.body.responseNodeId, 'result']]) {
    const edge = await req('POST', `/v1/workflows/${wf.body.id}/edges`, { sourceNodeId: s, sourceHandle: sh, targetNodeId: t, targetHandle: th });
    assert.equal(edge.status, 201, edge.text);
  }
  return { id: wf.body.id, requestNodeId: wf.body.requestNodeId, tts: tts.body.nodeId, wave: wave.body.nodeId, responseNodeId: wf.body.responseNodeId };
}

describe('building and running a workflow', () => {
  test('runs with values, caches every node on re-run at zero cost, recomputes after the cache is cleared', async () => {
    const w = await buildTextToWaveform();
    const values = { [w.requestNodeId]: { text: 'Workflows run their nodes in order.' } };
    const estimate = await req('POST', '/v1/workflows/estimate-credits', { nodes: (await req('GET', `/v1/workflows/${w.id}`)).body.nodes });
    const before = await balance(srv, key);

    const r1 = await req('POST', '/v1/runs', { workflowId: w.id, values });
    assert.equal(r1.status, 202, r1.text);
    assert.equal(r1.body.estimatedCredits, estimate.body.totalMicrocredits, 'a run costs its estimate');
    const run1 = await waitForStatus(srv, key, `/v1/runs/${r1.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
    assert.equal(run1.status, 'COMPLETED', JSON.stringify(run1.nodeRuns.map((n: any) => [n.nodeId, n.status, n.error])));
    assert.equal(run1.actualCredits, estimate.body.totalMicrocredits);
    assert.deepEqual(run1.nodeRuns.map((n: any) => [n.status, n.cached]), [['COMPLETED', false], ['COMPLETED', false]]);
    const video = run1.outputs[w.wave]['out:result'];
    assert.equal(video.length, 1);
    const mp4 = Buffer.from(await (await fetch(video[0])).arrayBuffer());
    assert.equal(mp4.subarray(4, 8).toString(), 'ftyp', 'a real MP4');
    assert.equal((await balance(srv, key)).availableBalance, before.availableBalance - estimate.body.totalMicrocredits);

    const r2 = await req('POST', '/v1/runs', { workflowId: w.id, values });
    const run2 = await waitForStatus(srv, key, `/v1/runs/${r2.body.runId}`, ['COMPLETED', 'FAILED'], 60_000);
    assert.equal(run2.status, 'COMPLETED');
    assert.deepEqual(run2.nodeRuns.map((n: any) => n.cached), [true, true]);
    assert.equal(run2.actualCredits, 0);
    // Cached nodes hand back the same artifacts (the signed URLs differ only in their expiry and signature).
    const fileIds = (run: any) => run.outputs[w.wave]['out:result'].map((u: string) => new URL(u).pathname);
    assert.deepEqual(fileIds(run2), fileIds(run1));
    assert.equal((await balance(srv, key)).availableBalance, before.availableBalance - estimate.body.totalMicrocredits, 'the cached run cost nothing');

    // Clients that send Content-Type: application/json on every request (with no body) work too.
    const cleared = await srv.request('DELETE', `/v1/workflows/${w.id}/cache`, { key, headers: { 'content-type': 'application/json' } });
    assert.equal(cleared.status, 200);
    assert.ok(cleared.body.cleared >= 2);
    const r3 = await req('POST', '/v1/runs', { workflowId: w.id, values });
    const run3 = await waitForStatus(srv, key, `/v1/runs/${r3.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
    assert.deepEqual(run3.nodeRuns.map((n: any) => n.cached), [false, false]);
    assert.equal(run3.actualCredits, estimate.body.totalMicrocredits);
  });

  // The test-only sleeping engine (test/helpers/testEngines.ts): each node waits until told, so both are
  // seen running at once before either may finish — parallel without measuring any time.
  test('independent branches run in parallel', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-branches-'));
    const f = (name: string) => path.join(dir, name);
    const wf = await req('POST', '/v1/workflows', {
      name: 'Two sleepers',
      nodes: [
        { id: 'req', type: 'request', data: { fields: [{ id: 'release', name: 'release', type: 'text' }] } },
        { id: 'a', type: 'test_sleep', data: { started_file: f('a') } },
        { id: 'b', type: 'test_sleep', data: { started_file: f('b') } },
        { id: 'res', type: 'response' },
      ],
      edges: [
        { source: 'req', sourceHandle: 'release', target: 'a', targetHandle: 'in:release_file' },
        { source: 'req', sourceHandle: 'release', target: 'b', targetHandle: 'in:release_file' },
        { source: 'a', sourceHandle: 'out:output', target: 'res', targetHandle: 'result' },
        { source: 'b', sourceHandle: 'out:output', target: 'res', targetHandle: 'result' },
      ],
    });
    assert.equal(wf.status, 201, wf.text);
    const r = await req('POST', '/v1/runs', { workflowId: wf.body.id, values: { req: { release: f('go') } } });
    assert.equal(r.status, 202, r.text);
    const deadline = Date.now() + 90_000;
    while (!(fs.existsSync(f('a')) && fs.existsSync(f('b')))) {
      assert.ok(Date.now() < deadline, 'both branches never ran at the same time');
      await new Promise((res) => setTimeout(res, 50));
    }
    fs.writeFileSync(f('go'), 'go');
    const run = await waitForStatus(srv, key, `/v1/runs/${r.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
    assert.equal(run.status, 'COMPLETED', JSON.stringify(run.nodeRuns.map((n: any) => n.error)));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a failing node skips what depends on it, refunds the rest; a re-run pays only for what did not complete', async () => {
    const wf = await req('POST', '/v1/workflows', {
      name: 'Half fails',
      nodes: [
        { id: 'req', type: 'request', data: { fields: [{ id: 'text', name: 'text', type: 'text' }, { id: 'image', name: 'image', type: 'image' }] } },
        { id: 'speech', type: 'espeak_tts' },
        { id: 'small', type: 'resize_image', data: { width: 64 } },
        { id: 'motion', type: 'ken_burns_video', data: { duration: 2, width: 320, height: 240 } },
        { id: 'res', type: 'response' },
      ],
      edges: [
        { source: 'req', sourceHandle: 'text', target: 'speech', targetHandle: 'in:text' },
        { source: 'req', sourceHandle: 'image', target: 'small', targetHandle: 'in:image_url' },
        { source: 'small', sourceHandle: 'out:result', target: 'motion', targetHandle: 'in:image_url' },
        { source: 'speech', sourceHandle: 'out:result', target: 'res', targetHandle: 'result' },
        { source: 'motion', sourceHandle: 'out:result', target: 'res', targetHandle: 'result' },
      ],
    });
    assert.equal(wf.status, 201, wf.text);
    const before = await balance(srv, key);
    const r1 = await req('POST', '/v1/runs', { workflowId: wf.body.id, values: { req: { text: 'half and half', image: 'data:image/png;base64,bm90IGFuIGltYWdl' } } });
    const run1 = await waitForStatus(srv, key, `/v1/runs/${r1.body.runId}`, ['COMPLETED', 'FAILED'], 60_000);
    assert.equal(run1.status, 'FAILED');
    const byId = Object.fromEntries(run1.nodeRuns.map((n: any) => [n.nodeId, n]));
    assert.equal(byId.speech.status, 'COMPLETED');
    assert.equal(byId.small.status, 'FAILED');
    assert.equal(byId.motion.status, 'SKIPPED');
    assert.match(run1.error, /small/);
    assert.equal(run1.actualCredits, byId.speech.actualCredits);
    assert.equal((await balance(srv, key)).availableBalance, before.availableBalance - byId.speech.actualCredits);
    assert.equal((await balance(srv, key)).reservedMicrocredits, 0);

    const r2 = await req('POST', '/v1/runs', { workflowId: wf.body.id, values: { req: { text: 'half and half', image: await png() } } });
    const run2 = await waitForStatus(srv, key, `/v1/runs/${r2.body.runId}`, ['COMPLETED', 'FAILED'], 60_000);
    assert.equal(run2.status, 'COMPLETED', JSON.stringify(run2.nodeRuns.map((n: any) => n.error)));
    const by2 = Object.fromEntries(run2.nodeRuns.map((n: any) => [n.nodeId, n]));
    assert.equal(by2.speech.cached, true);
    assert.equal(by2.speech.actualCredits, 0);
    assert.equal(run2.actualCredits, by2.small.actualCredits + by2.motion.actualCredits);
  });

  test('cancel stops running nodes, cancels the rest and refunds all uncharged', async () => {
    const image = await png();
    const wf = await req('POST', '/v1/workflows', {
      name: 'Slow',
      nodes: [
        { id: 'req', type: 'request', data: { fields: [{ id: 'image', name: 'image', type: 'image' }] } },
        { id: 'slow', type: 'ken_burns_video', data: { duration: 60, width: 1920, height: 1080, fps: 60 } },
        { id: 'after', type: 'video_to_gif' },
        { id: 'res', type: 'response' },
      ],
      edges: [
        { source: 'req', sourceHandle: 'image', target: 'slow', targetHandle: 'in:image_url' },
        { source: 'slow', sourceHandle: 'out:result', target: 'after', targetHandle: 'in:video_url' },
        { source: 'after', sourceHandle: 'out:result', target: 'res', targetHandle: 'result' },
      ],
    });
    assert.equal(wf.status, 201, wf.text);
    const before = await balance(srv, key);
    const r = await req('POST', '/v1/runs', { workflowId: wf.body.id, values: { req: { image } }, webhook: { url: rx.url('/wf-cancel') } });
    await waitForStatus(srv, key, `/v1/runs/${r.body.runId}`, ['RUNNING']);
    await new Promise((res) => setTimeout(res, 300));
    const c = await req('POST', `/v1/runs/${r.body.runId}/cancel`);
    assert.equal(c.status, 200);
    assert.equal(c.body.status, 'CANCELED');
    assert.deepEqual(c.body.nodeRuns.map((n: any) => n.status), ['CANCELED', 'CANCELED']);
    assert.deepEqual(await balance(srv, key), before);
    await rx.waitFor(() => rx.forPath('/wf-cancel').some((d) => d.json.type === 'run.canceled'));
  });

  test('an advance that fails after a node ended leaves that node settled; the sweeper advances the run later', async () => {
    // The database refuses to start the node `refused` while the table exists: the advance after `first` fails.
    const db = srv.services.db;
    await db.query(`CREATE TABLE test_refuse_start (node_id text)`);
    await db.query(`INSERT INTO test_refuse_start VALUES ('refused')`);
    await db.query(`CREATE FUNCTION test_refuse_start() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.status = 'PENDING' AND NEW.status <> 'PENDING' AND EXISTS (SELECT 1 FROM test_refuse_start t WHERE t.node_id = NEW.node_id) THEN
          RAISE EXCEPTION 'refused by the test';
        END IF;
        RETURN NEW;
      END $$`);
    await db.query(`CREATE TRIGGER test_refuse_start BEFORE UPDATE ON node_runs FOR EACH ROW EXECUTE FUNCTION test_refuse_start()`);
    try {
      const wf = await req('POST', '/v1/workflows', {
        name: 'Refused advance',
        nodes: [
          { id: 'req', type: 'request', data: { fields: [{ id: 'text', name: 'text', type: 'text' }] } },
          { id: 'first', type: 'text_template', data: { template: '{{ text }} one' } },
          { id: 'refused', type: 'text_template', data: { template: '{{ text }} two' } },
          { id: 'res', type: 'response' },
        ],
        edges: [
          { source: 'req', sourceHandle: 'text', target: 'first', targetHandle: 'in:text' },
          { source: 'first', sourceHandle: 'out:output', target: 'refused', targetHandle: 'in:text' },
          { source: 'refused', sourceHandle: 'out:output', target: 'res', targetHandle: 'result' },
        ],
      });
      assert.equal(wf.status, 201, wf.text);
      const r = await req('POST', '/v1/runs', { workflowId: wf.body.id, values: { req: { text: `refused ${Date.now()}` } } });
      assert.equal(r.status, 202, r.text);
      const states = async () => Object.fromEntries((await db.query(`SELECT node_id, status FROM node_runs WHERE run_id = $1`, [r.body.runId])).rows.map((n) => [n.node_id, n.status]));
      for (const deadline = Date.now() + 60_000; (await states()).first !== 'COMPLETED';) {
        assert.ok(Date.now() < deadline, 'the first node completes');
        await new Promise((res) => setTimeout(res, 100));
      }
      assert.deepEqual(await states(), { first: 'COMPLETED', refused: 'PENDING' }, 'the settle stood; the advance did not');
      const captured = (await db.query(`SELECT count(*)::int AS n FROM ledger_entries WHERE run_id = $1 AND kind = 'capture'`, [r.body.runId])).rows[0].n;
      assert.equal(captured, 1, 'the first node was charged with its settle');
      await db.query(`DELETE FROM test_refuse_start`);
      const done = await waitForStatus(srv, key, `/v1/runs/${r.body.runId}`, ['COMPLETED', 'FAILED'], 90_000);
      assert.equal(done.status, 'COMPLETED', done.error);
      assert.deepEqual(done.nodeRuns.map((n: any) => [n.nodeId, n.status]), [['first', 'COMPLETED'], ['refused', 'COMPLETED']]);
      const captures = (await db.query(`SELECT count(*)::int AS n FROM ledger_entries WHERE run_id = $1 AND kind = 'capture'`, [r.body.runId])).rows[0].n;
      assert.equal(captures, 2, 'each node charged once');
      assert.equal(done.actualCredits, done.estimatedCredits);
    } finally {
      await db.query(`DROP TRIGGER IF EXISTS test_refuse_start ON node_runs`);
      await db.query(`DROP FUNCTION IF EXISTS test_refuse_start()`);
      await db.query(`DROP TABLE IF EXISTS test_refuse_start`);
    }
  });
});

describe('events of a workflow run', () => {
  test('run.started, node.completed per node, run.completed with counts', async () => {
    const w = await buildTextToWaveform();
    const r = await req('POST', '/v1/runs', { workflowId: w.id, values: { [w.requestNodeId]: { text: 'events please' } }, webhook: { url: rx.url('/wf'), metadata: { job: 9 } } });
    await rx.waitFor(() => rx.forPath('/wf').some((d) => d.json.type === 'run.completed'), 120_000);
    const types = rx.forPath('/wf').map((d) => d.json.type);
    assert.deepEqual(types, ['run.started', 'node.completed', 'node.completed', 'run.completed']);
    const done = rx.forPath('/wf').at(-1)!.json;
    assert.equal(done.workflowId, w.id);
    assert.deepEqual(done.metadata, { job: 9 });
    assert.equal(done.data.status, 'COMPLETED');
    assert.equal(done.data.completedNodes, 2);
    assert.equal(done.data.failedNodes, 0);
    assert.equal(rx.forPath('/wf')[1]!.json.data.nodeId, w.tts);
    const sse = await (await fetch(`${srv.url}/v1/runs/${r.body.runId}/events`, { headers: { authorization: `Bearer ${key}` } })).text();
    assert.deepEqual([...sse.matchAll(/event: ([\w.]+)/g)].map((m) => m[1]), types);
  });
});

describe('validation and ownership', () => {
  test('invalid graphs are 400 INVALID_GRAPH naming node and port', async () => {
    const bad = await req('POST', '/v1/workflows', {
      name: 'Bad', nodes: [{ id: 'a', type: 'espeak_tts' }, { id: 'b', type: 'waveform_video' }],
      edges: [{ source: 'a', sourceHandle: 'out:result', target: 'b', targetHandle: 'in:nope' }],
    });
    const b = expectErrorBody(bad, 400, 'INVALID_GRAPH');
    assert.deepEqual(b.nodeErrors[0], { nodeId: 'b', port: 'in:nope', message: 'no input port in:nope' });
    const cyc = await req('POST', '/v1/workflows', {
      name: 'Cycle', nodes: [{ id: 'a', type: 'text_template', data: { template: 'x' } }, { id: 'b', type: 'text_template', data: { template: 'y' } }],
      edges: [{ source: 'a', sourceHandle: 'out:output', target: 'b', targetHandle: 'in:text' }, { source: 'b', sourceHandle: 'out:output', target: 'a', targetHandle: 'in:text' }],
    });
    assert.ok(expectErrorBody(cyc, 400, 'INVALID_GRAPH').nodeErrors.some((e: any) => /cycle/.test(e.message)));
    const typeErr = await req('POST', '/v1/workflows', {
      name: 'Types', nodes: [{ id: 'a', type: 'espeak_tts' }, { id: 'b', type: 'espeak_tts' }],
      edges: [{ source: 'a', sourceHandle: 'out:result', target: 'b', targetHandle: 'in:text' }],
    });
    assert.match(expectErrorBody(typeErr, 400, 'INVALID_GRAPH').nodeErrors[0].message, /audio .* cannot feed a text input/);
    const many = Array.from({ length: 101 }, (_, i) => ({ id: `n${i}`, type: 'word_count' }));
    expectErrorBody(await req('POST', '/v1/workflows', { name: 'Big', nodes: many, edges: [] }), 400, 'TOO_MANY_NODES');
    const w = await buildTextToWaveform();
    const dup = await req('POST', `/v1/workflows/${w.id}/edges`, { sourceNodeId: w.requestNodeId, sourceHandle: 'text', targetNodeId: w.tts, targetHandle: 'in:text' });
    assert.match(expectErrorBody(dup, 400, 'INVALID_GRAPH').message, /one edge/);
    const patch = await req('PATCH', `/v1/workflows/${w.id}/nodes/${w.wave}`, { inputs: { style: 'not-a-style' } });
    expectErrorBody(patch, 400, 'VALIDATION_ERROR');
    const ok = await req('PATCH', `/v1/workflows/${w.id}/nodes/${w.wave}`, { inputs: { style: null, width: 640 } });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body.data, { width: 640 });
    expectErrorBody(await req('POST', '/v1/runs', { workflowId: w.id, values: { [w.requestNodeId]: {} } }), 400, 'VALIDATION_ERROR');
    expectErrorBody(await req('POST', '/v1/runs', { workflowId: w.id, values: { nope: { text: 'x' } } }), 400, 'VALIDATION_ERROR');
    expectErrorBody(await req('DELETE', `/v1/workflows/${w.id}/nodes/${w.requestNodeId}`), 400, 'VALIDATION_ERROR');
  });

  test('another account sees 404 for workflows and runs', async () => {
    const w = await buildTextToWaveform();
    const r = await req('POST', '/v1/runs', { workflowId: w.id, values: { [w.requestNodeId]: { text: 'mine' } } });
    const other = (await srv.user()).key;
    expectErrorBody(await req('GET', `/v1/workflows/${w.id}`, undefined, other), 404, 'NOT_FOUND');
    expectErrorBody(await req('POST', '/v1/runs', { workflowId: w.id }, other), 404, 'NOT_FOUND');
    expectErrorBody(await req('GET', `/v1/runs/${r.body.runId}`, undefined, other), 404, 'NOT_FOUND');
    expectErrorBody(await req('DELETE', `/v1/workflows/${w.id}/cache`, undefined, other), 404, 'NOT_FOUND');
    const batch = await req('POST', '/v1/runs/batch', { ids: [r.body.runId, 'run_nope'] }, other);
    assert.deepEqual(batch.body.runs, []);
    const mine = await req('POST', '/v1/runs/batch', { ids: [r.body.runId, 'run_nope'] });
    assert.deepEqual(mine.body.runs.map((x: any) => x.id), [r.body.runId]);
    await waitForStatus(srv, key, `/v1/runs/${r.body.runId}`, ['COMPLETED', 'FAILED'], 60_000);
  });
});

describe('system workflows', () => {
  test('are listed with their inputs, run by slug, and duplicate into the workspace', async () => {
    const list = await req('GET', '/v1/system-workflows');
    assert.equal(list.status, 200);
    assert.ok(list.body.items.length >= 5);
    const nw = list.body.items.find((i: any) => i.slug === 'narrated-waveform');
    assert.deepEqual(nw.nodeTypes, ['espeak_tts', 'waveform_video']);
    assert.equal(nw.requestFields[0].id, 'text');
    const r = await req('POST', '/v1/runs', { workflowId: 'sound-scene', values: { request: { seed: 3 } } });
    assert.equal(r.status, 202, r.text);
    const run = await waitForStatus(srv, key, `/v1/runs/${r.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
    assert.equal(run.status, 'COMPLETED', JSON.stringify(run.nodeRuns.map((n: any) => n.error)));
    const wav = Buffer.from(await (await fetch(run.outputs.mix['out:result'][0])).arrayBuffer());
    assert.equal(wav.subarray(0, 4).toString(), 'RIFF');
    const copy = await req('POST', '/v1/workflows/narrated-waveform/duplicate');
    assert.equal(copy.status, 201);
    assert.equal(copy.body.isSystem, false);
    assert.equal(copy.body.name, 'Narrated waveform video (copy)');
    assert.notEqual(copy.body.id, nw.id);
    expectErrorBody(await req('PATCH', `/v1/workflows/${nw.id}`, { name: 'mine now' }), 403, 'FORBIDDEN');
    const edited = await req('PATCH', `/v1/workflows/${copy.body.id}`, { name: 'mine now' });
    assert.equal(edited.body.name, 'mine now');
    const listed = await req('GET', '/v1/workflows?search=mine');
    assert.ok(listed.body.items.some((i: any) => i.id === copy.body.id));
  });
});

describe('listing workflow runs', () => {
  test('newest first, filtered by status and workflow, with a cursor', async () => {
    const u = (await srv.user()).key;
    const wf = await req('POST', '/v1/workflows', {
      name: 'Counter', nodes: [{ id: 'req', type: 'request', data: { fields: [{ id: 't', name: 't', type: 'text' }] } }, { id: 'wc', type: 'word_count' }, { id: 'res', type: 'response' }],
      edges: [{ source: 'req', sourceHandle: 't', target: 'wc', targetHandle: 'in:text' }, { source: 'wc', sourceHandle: 'out:words', target: 'res', targetHandle: 'result' }],
    }, u);
    assert.equal(wf.status, 201, wf.text);
    const ids: string[] = [];
    for (const t of ['one', 'two words', 'three more words']) {
      const r = await req('POST', '/v1/runs', { workflowId: wf.body.id, values: { req: { t } } }, u);
      ids.push(r.body.runId);
      await waitForStatus(srv, u, `/v1/runs/${r.body.runId}`, ['COMPLETED', 'FAILED']);
    }
    const last = await req('GET', `/v1/runs/${ids[2]}`, undefined, u);
    assert.deepEqual(last.body.outputs, { wc: { 'out:words': 3 } });
    const p1 = await req('GET', `/v1/runs?limit=2&workflowId=${wf.body.id}&status=COMPLETED`, undefined, u);
    assert.equal(p1.status, 200, p1.text);
    assert.deepEqual(p1.body.items.map((r: { id: string }) => r.id), [ids[2], ids[1]]);
    assert.equal(p1.body.items[0].nodeRuns[0].input, undefined, 'lists leave out node inputs and outputs');
    const p2 = await req('GET', `/v1/runs?limit=2&workflowId=${wf.body.id}&status=COMPLETED&cursor=${p1.body.nextCursor}`, undefined, u);
    assert.deepEqual(p2.body.items.map((r: { id: string }) => r.id), [ids[0]]);
    assert.equal((await req('GET', `/v1/runs?status=FAILED&workflowId=${wf.body.id}`, undefined, u)).body.items.length, 0);
    expectErrorBody(await req('GET', '/v1/runs?status=DONE', undefined, u), 400, 'VALIDATION_ERROR');
    const brief = await req('GET', `/v1/runs/${ids[0]}?inDetails=false`, undefined, u);
    assert.equal(brief.body.nodeRuns[0].output, undefined);
  });
});
