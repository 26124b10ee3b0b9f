import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { balance, until, waitForStatus } from '../helpers/poll.js';
import { GATED_NODE_TYPE, startGatedModel, type GatedModel } from '../helpers/gatedModel.js';
import { setMaxPriority } from '../../src/keys/priority.js';
import { QueuePositions } from '../../src/queue/positions.js';
import type { Queryable } from '../../src/db/pool.js';

/**
 * Priority and queue position (issue 29 item 4), asserted by order, not time: one engine slot and a
 * test-only model that holds each run until the test releases it. With a backlog of one account queued
 * first, that account's high-priority run starts before the backlog's next run; a queued run's position
 * falls as the runs ahead of it start.
 */
let srv: TestServer;
let gated: GatedModel;
let dataDir: string;
before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-priority-'));
  gated = await startGatedModel(dataDir);
  // The gated model is remote, and remote runs give their CPU slot back (issue 31, execution/remoteLane.ts):
  // a worker cap of one remote run makes the next claimed run wait, holding the one slot, so the runs
  // behind it stay in the queue where priority orders them.
  srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1', ATELIER_WORKER_CONCURRENCY: '1', ATELIER_REMOTE_INFLIGHT: '1' }, { dataDir });
});
after(async () => {
  await gated.close();
  await srv.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const create = (key: string, prompt: string, priority?: number) =>
  srv.request('POST', `/v1/nodes/${GATED_NODE_TYPE}/run`, { key, body: { input: { prompt }, ...(priority === undefined ? {} : { priority }) } });
const run = async (key: string, prompt: string, priority?: number) => {
  const r = await create(key, prompt, priority);
  assert.equal(r.status, 202, r.text);
  return r.body.runId as string;
};

test('a key asks for more than normal priority only up to the ceiling the operator set', async () => {
  const u = await srv.user();
  const refused = await create(u.key, 'P-refused', 3);
  assert.equal(refused.status, 403, refused.text);
  assert.equal(refused.body.code, 'PRIORITY_NOT_ALLOWED');
  assert.equal(refused.body.maxPriority, 0);
  const outOfRange = await create(u.key, 'P-range', 11);
  assert.equal(outOfRange.status, 400, outOfRange.text);
  assert.equal(outOfRange.body.code, 'VALIDATION_ERROR');
  // Nothing was held for the refused creates.
  assert.equal((await balance(srv, u.key)).reservedMicrocredits, 0);
  const user = await srv.services.accounts.requireByEmail(u.email);
  assert.deepEqual(await setMaxPriority(srv.services.db, user.id, 'test', 3), { id: (await srv.services.keys.list(user))[0]!.id, label: 'test', maxPriority: 3 });
  // Lower than normal needs no ceiling; the record carries the level it was queued at.
  const low = await run(u.key, 'P-low', -2);
  const high = await run(u.key, 'P-high', 3);
  for (const p of ['P-low', 'P-high']) gated.release(p);
  for (const [id, level] of [[low, -2], [high, 3]] as const) {
    const done = await waitForStatus(srv, u.key, `/v1/nodes/runs/${id}`, ['COMPLETED', 'FAILED']);
    assert.equal(done.status, 'COMPLETED');
    assert.equal(done.priority, level);
  }
  gated.started.length = 0;
});

test('with a backlog queued first, a high-priority run of the same account starts before the backlog\'s next run, and a queued run\'s position falls as runs ahead of it start', async () => {
  const u = await srv.user();
  const user = await srv.services.accounts.requireByEmail(u.email);
  await setMaxPriority(srv.services.db, user.id, 'test', 5);
  const backlog: string[] = [];
  for (let i = 1; i <= 4; i++) backlog.push(await run(u.key, `B${i}`));
  assert.deepEqual(await gated.waitForStarted(1), ['B1']);
  const last = backlog[3]!;
  const position = async (id: string) => {
    const r = await srv.request('GET', `/v1/nodes/runs/${id}`, { key: u.key });
    assert.equal(r.status, 200, r.text);
    return r.body as { status: string; queuePosition?: number | null; estimatedStartAt?: string | null };
  };
  // B2 has left the queue (claimed, waiting for the worker's one remote place); B3 waits before B4.
  await until('B4 stands behind B3', async () => (await position(last)).queuePosition === 1);
  const urgent = await run(u.key, 'URGENT', 5);
  await until('the urgent run goes ahead of the whole queued backlog', async () => (await position(urgent)).queuePosition === 0 && (await position(last)).queuePosition === 2);

  gated.release('B1');
  assert.deepEqual(await gated.waitForStarted(2), ['B1', 'B2']);
  // The next run taken from the queue is the urgent one, though B3 and B4 were queued before it.
  await until('B4 moved up as the urgent run left the queue', async () => (await position(last)).queuePosition === 1);
  // Runs have left the queue between snapshots, so the queue's pace is known and so is an estimate.
  const standing = await position(last);
  assert.equal(standing.status, 'QUEUED');
  assert.ok(standing.estimatedStartAt && !Number.isNaN(Date.parse(standing.estimatedStartAt)), JSON.stringify(standing));
  gated.release('B2');
  assert.deepEqual(await gated.waitForStarted(3), ['B1', 'B2', 'URGENT']);
  await until('B4 is next', async () => (await position(last)).queuePosition === 0);
  gated.release('URGENT');
  await gated.waitForStarted(4);
  gated.release('B3');
  await gated.waitForStarted(5);
  gated.release('B4');
  assert.deepEqual(gated.started, ['B1', 'B2', 'URGENT', 'B3', 'B4']);
  for (const id of [...backlog, urgent]) {
    const done = await waitForStatus(srv, u.key, `/v1/nodes/runs/${id}`, ['COMPLETED', 'FAILED']);
    assert.equal(done.status, 'COMPLETED');
    // An ended run says nothing about a queue it has left.
    assert.equal(done.queuePosition, undefined);
  }
});

test('queue positions cost one query per snapshot, however many runs are polled how often', async () => {
  const u = await srv.user();
  gated.started.length = 0;
  const ids = [await run(u.key, 'S1'), await run(u.key, 'S2'), await run(u.key, 'S3')];
  await gated.waitForStarted(1);
  await until('S2 left the queue', async () => (await srv.request('GET', `/v1/nodes/runs/${ids[1]}`, { key: u.key })).body.status === 'RUNNING');
  let queries = 0;
  const counting = { query: (text: string, values?: unknown[]) => (queries++, srv.services.db.query(text, values)) } as unknown as Queryable;
  let clock = 1_000_000;
  const positions = new QueuePositions(counting, { maxAgeMs: 1000, now: () => clock });
  for (let poll = 0; poll < 10; poll++) {
    const standings = await Promise.all(ids.map((id) => positions.of(id)));
    // S1 runs, S2 was claimed and waits for the worker's one remote place, S3 is next in the queue.
    assert.deepEqual(standings.map((s) => s.position), [null, null, 0]);
  }
  assert.equal(queries, 1);
  clock += 1001;
  await Promise.all(ids.map((id) => positions.of(id)));
  assert.equal(queries, 2);
  for (const p of ['S1', 'S2', 'S3']) gated.release(p);
  for (const id of ids) assert.equal((await waitForStatus(srv, u.key, `/v1/nodes/runs/${id}`, ['COMPLETED', 'FAILED'])).status, 'COMPLETED');
});

/** Request(a, b) → two gated nodes side by side → Response: the advance runs one node itself and queues the other as a node job. */
async function twoNodeWorkflow(key: string): Promise<{ id: string; requestNodeId: string }> {
  const fields = [{ id: 'a', name: 'a', type: 'text' }, { id: 'b', name: 'b', type: 'text' }];
  const res = await srv.request('POST', '/v1/workflows', {
    key,
    body: {
      name: 'two gated nodes', requestFields: fields,
      nodes: [
        { id: 'req', type: 'request', position: { x: 0, y: 0 }, data: { fields } },
        { id: 'na', type: GATED_NODE_TYPE, position: { x: 200, y: 0 }, data: {} },
        { id: 'nb', type: GATED_NODE_TYPE, position: { x: 200, y: 200 }, data: {} },
        { id: 'res', type: 'response', position: { x: 400, y: 0 }, data: {} },
      ],
      edges: [
        { id: 'e1', source: 'req', sourceHandle: 'a', target: 'na', targetHandle: 'in:prompt' },
        { id: 'e2', source: 'req', sourceHandle: 'b', target: 'nb', targetHandle: 'in:prompt' },
        { id: 'e3', source: 'na', sourceHandle: 'out:output', target: 'res', targetHandle: 'result' },
        { id: 'e4', source: 'nb', sourceHandle: 'out:output', target: 'res', targetHandle: 'result' },
      ],
    },
  });
  assert.equal(res.status, 201, res.text);
  return { id: res.body.id, requestNodeId: res.body.requestNodeId };
}

test('a workflow run takes a priority as a model run does: refused above the key\'s ceiling, and its jobs and node jobs go ahead of a queued backlog', async () => {
  const u = await srv.user();
  const user = await srv.services.accounts.requireByEmail(u.email);
  const wf = await twoNodeWorkflow(u.key);
  const createWf = (priority: number | undefined, a: string, b: string) => srv.request('POST', '/v1/runs', {
    key: u.key, body: { workflowId: wf.id, values: { [wf.requestNodeId]: { a, b } }, ...(priority === undefined ? {} : { priority }) },
  });
  const refused = await createWf(3, 'W-refused-a', 'W-refused-b');
  assert.equal(refused.status, 403, refused.text);
  assert.equal(refused.body.code, 'PRIORITY_NOT_ALLOWED');
  assert.equal(refused.body.maxPriority, 0);
  assert.equal(refused.body.requestedPriority, 3);
  const outOfRange = await createWf(-11, 'W-range-a', 'W-range-b');
  assert.equal(outOfRange.status, 400, outOfRange.text);
  assert.equal(outOfRange.body.code, 'VALIDATION_ERROR');
  assert.equal((await balance(srv, u.key)).reservedMicrocredits, 0, 'nothing was held for the refused creates');

  await setMaxPriority(srv.services.db, user.id, 'test', 5);
  gated.started.length = 0;
  const backlog: string[] = [];
  for (let i = 1; i <= 4; i++) backlog.push(await run(u.key, `WB${i}`));
  assert.deepEqual(await gated.waitForStarted(1), ['WB1']);
  const last = backlog[3]!;
  const position = async (id: string) => (await srv.request('GET', `/v1/nodes/runs/${id}`, { key: u.key })).body.queuePosition;
  await until('WB4 stands behind WB3', async () => (await position(last)) === 1);
  const urgent = await createWf(5, 'WF-A', 'WF-B');
  assert.equal(urgent.status, 202, urgent.text);
  await until('the urgent workflow\'s job goes ahead of the queued backlog', async () => (await position(last)) === 2);

  gated.release('WB1');
  assert.deepEqual(await gated.waitForStarted(2), ['WB1', 'WB2']);
  gated.release('WB2');
  // One node runs on the worker that advanced the run; the other was queued as a node job, at the run's priority.
  const third = (await gated.waitForStarted(3))[2]!;
  assert.ok(['WF-A', 'WF-B'].includes(third), third);
  gated.release(third);
  const fourth = (await gated.waitForStarted(4))[3]!;
  assert.deepEqual([third, fourth].sort(), ['WF-A', 'WF-B'], 'the node job went ahead of WB3 and WB4 too');
  gated.release(fourth);
  await gated.waitForStarted(5);
  gated.release('WB3');
  await gated.waitForStarted(6);
  gated.release('WB4');
  assert.deepEqual(gated.started.slice(4), ['WB3', 'WB4']);
  const done = await waitForStatus(srv, u.key, `/v1/runs/${urgent.body.runId}`, ['COMPLETED', 'FAILED']);
  assert.equal(done.status, 'COMPLETED', done.error);
  assert.equal(done.priority, 5, 'the workflow run record carries the level it was queued at');
  for (const id of backlog) assert.equal((await waitForStatus(srv, u.key, `/v1/nodes/runs/${id}`, ['COMPLETED', 'FAILED'])).status, 'COMPLETED');
});
