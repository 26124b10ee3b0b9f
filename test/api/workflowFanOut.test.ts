import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { balance, until, waitForStatus } from '../helpers/poll.js';
import { TEST_ENGINES_MODULE } from '../helpers/testEngines.js';

/**
 * Issue 31, item 4: a fan-out (one node feeding many side by side) is queued by one advance in a few
 * statements, and a worker whose settle leased it nothing takes a queued sibling with that settle's COMMIT
 * instead of fetching its job; the jobs of the siblings it ran are dropped. Each node still runs once,
 * after its inputs were committed, and a cached re-run ends every node from the cache with its event.
 */
const WIDTH = 6;
let srv: TestServer;
let key: string;
before(async () => {
  // One job loop: every node after the first is a sibling the loop takes itself, none is fetched as a job.
  srv = await startTestServer({ ATELIER_WORKER_CONCURRENCY: '1', ATELIER_TEST_ENGINES_MODULE: TEST_ENGINES_MODULE });
  key = (await srv.user({ microcredits: 1_000_000n })).key;
});
after(async () => {
  await srv?.close();
});

const ids = Array.from({ length: WIDTH }, (_, i) => `t${i}`);
const fan = {
  name: 'Fan',
  nodes: [
    { id: 'req', type: 'request', data: { fields: [{ id: 'text', name: 'text', type: 'text' }] } },
    ...ids.map((id) => ({ id, type: 'text_template', data: { template: `${id}:{{ text }}` } })),
    { id: 'res', type: 'response' },
  ],
  edges: [
    ...ids.map((id) => ({ source: 'req', sourceHandle: 'text', target: id, targetHandle: 'in:text' })),
    ...ids.map((id) => ({ source: id, sourceHandle: 'out:output', target: 'res', targetHandle: 'result' })),
  ],
};

/** The run's node jobs still waiting to be fetched. */
async function nodeJobs(runId: string): Promise<number> {
  return (await srv.services.db.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'run' AND data->>'runId' = $1 AND data ? 'nodeId' AND state IN ('created', 'retry')`, [runId])).rows[0].n;
}

test('a fan-out runs each node once on one worker, siblings taken without their jobs, none of which is left waiting', async () => {
  const wf = await srv.request('POST', '/v1/workflows', { key, body: fan });
  assert.equal(wf.status, 201, wf.text);
  const created = await srv.request('POST', '/v1/runs', { key, body: { workflowId: wf.body.id, values: { req: { text: 'x' } } } });
  assert.equal(created.status, 202, created.text);
  const run = await waitForStatus(srv, key, `/v1/runs/${created.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
  assert.equal(run.status, 'COMPLETED', JSON.stringify(run.nodeRuns));
  const rows = (await srv.services.db.query(`SELECT node_id, status, attempts, cached, started_at, finished_at FROM node_runs WHERE run_id = $1 ORDER BY node_id`, [run.id])).rows;
  assert.deepEqual(rows.map((r: any) => [r.node_id, r.status, r.attempts, r.cached]), ids.map((id) => [id, 'COMPLETED', 1, false]));
  for (const r of rows) assert.ok(r.started_at && r.finished_at >= r.started_at, `node ${r.node_id} has its start and end`);
  // Its siblings' jobs were queued by the first advance; the loop ran the siblings without them, so each job is
  // dropped, or (the loop is given back when a node's engine ends, before its settle: execution/leasedTask.ts)
  // fetched meanwhile and finds its node taken. None is left waiting, and no node ran twice (attempts above).
  await until('no job of the siblings run without them is left waiting', async () => (await nodeJobs(run.id)) === 0, 30_000);
});

test('a cached re-run of the fan-out ends every node from the cache, each with its event before the run\'s', async () => {
  const wf = await srv.request('POST', '/v1/workflows', { key, body: { ...fan, name: 'Fan again' } });
  const values = { req: { text: 'same' } };
  const first = await srv.request('POST', '/v1/runs', { key, body: { workflowId: wf.body.id, values } });
  assert.equal((await waitForStatus(srv, key, `/v1/runs/${first.body.runId}`, ['COMPLETED', 'FAILED'], 120_000)).status, 'COMPLETED');
  const again = await srv.request('POST', '/v1/runs', { key, body: { workflowId: wf.body.id, values } });
  const run = await waitForStatus(srv, key, `/v1/runs/${again.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
  assert.equal(run.status, 'COMPLETED');
  assert.equal(run.actualCredits, 0);
  const nodes = (await srv.services.db.query(`SELECT node_id, status, cached, output FROM node_runs WHERE run_id = $1 ORDER BY node_id`, [run.id])).rows;
  assert.deepEqual(nodes.map((n: any) => [n.node_id, n.status, n.cached, n.output.output]), ids.map((id) => [id, 'COMPLETED', true, `${id}:same`]));
  const events = (await srv.services.db.query(`SELECT id, type, payload FROM events WHERE run_id = $1 ORDER BY id`, [run.id])).rows;
  assert.deepEqual(events.map((e: any) => e.type), ['run.started', ...ids.map(() => 'node.completed'), 'run.completed']);
  assert.deepEqual(events.filter((e: any) => e.type === 'node.completed').map((e: any) => [e.payload.data.nodeId, e.payload.data.cached, e.payload.data.output.output]).sort(),
    ids.map((id) => [id, true, `${id}:same`]));
});

test('in a chain each node starts only after its predecessor\'s end was committed, on one worker without jobs', async () => {
  const chainIds = ids;
  const wf = await srv.request('POST', '/v1/workflows', {
    key,
    body: {
      name: 'Chain',
      nodes: [fan.nodes[0], ...chainIds.map((id) => ({ id, type: 'text_template', data: { template: '{{ text }}+' } })), { id: 'res', type: 'response' }],
      edges: [
        { source: 'req', sourceHandle: 'text', target: chainIds[0], targetHandle: 'in:text' },
        ...chainIds.slice(1).map((id, i) => ({ source: chainIds[i], sourceHandle: 'out:output', target: id, targetHandle: 'in:text' })),
        { source: chainIds[WIDTH - 1], sourceHandle: 'out:output', target: 'res', targetHandle: 'result' },
      ],
    },
  });
  assert.equal(wf.status, 201, wf.text);
  const created = await srv.request('POST', '/v1/runs', { key, body: { workflowId: wf.body.id, values: { req: { text: 'c' } } } });
  const run = await waitForStatus(srv, key, `/v1/runs/${created.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
  assert.equal(run.status, 'COMPLETED');
  const rows = (await srv.services.db.query(`SELECT node_id, started_at, finished_at, attempts, output FROM node_runs WHERE run_id = $1 ORDER BY node_id`, [run.id])).rows;
  assert.equal(rows[WIDTH - 1].output.output, `c${'+'.repeat(WIDTH)}`);
  for (let i = 1; i < rows.length; i++) assert.ok(rows[i].started_at >= rows[i - 1].finished_at, `${rows[i].node_id} started after ${rows[i - 1].node_id} ended`);
  assert.deepEqual(rows.map((r: any) => r.attempts), chainIds.map(() => 1));
  assert.equal(await nodeJobs(run.id), 0, 'a chain queues no node jobs');
});

test('a canceled fan-out takes no further sibling: the running node stops, the rest never start, nothing is charged', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-fan-cancel-'));
  try {
    const sleepers = ['s0', 's1', 's2'];
    const wf = await srv.request('POST', '/v1/workflows', {
      key,
      body: {
        name: 'Fan of sleepers',
        nodes: [
          { id: 'req', type: 'request', data: { fields: [{ id: 'release', name: 'release', type: 'text' }] } },
          ...sleepers.map((id) => ({ id, type: 'test_sleep', data: { started_file: path.join(dir, id) } })),
          { id: 'res', type: 'response' },
        ],
        edges: [
          ...sleepers.map((id) => ({ source: 'req', sourceHandle: 'release', target: id, targetHandle: 'in:release_file' })),
          ...sleepers.map((id) => ({ source: id, sourceHandle: 'out:output', target: 'res', targetHandle: 'result' })),
        ],
      },
    });
    assert.equal(wf.status, 201, wf.text);
    const before = await balance(srv, key);
    const created = await srv.request('POST', '/v1/runs', { key, body: { workflowId: wf.body.id, values: { req: { release: path.join(dir, 'go') } } } });
    assert.equal(created.status, 202, created.text);
    await until('one sleeper started', () => sleepers.some((id) => fs.existsSync(path.join(dir, id))), 60_000);
    const c = await srv.request('POST', `/v1/runs/${created.body.runId}/cancel`, { key });
    assert.equal(c.status, 200, c.text);
    fs.writeFileSync(path.join(dir, 'go'), 'go');
    await new Promise((r) => setTimeout(r, 1500));
    const rows = (await srv.services.db.query(`SELECT node_id, status, started_at, charged_microcredits FROM node_runs WHERE run_id = $1 ORDER BY node_id`, [created.body.runId])).rows;
    assert.deepEqual(rows.map((r: any) => r.status), ['CANCELED', 'CANCELED', 'CANCELED']);
    assert.equal(rows.filter((r: any) => r.started_at !== null).length, 1, 'only the node running at the cancel ever started');
    assert.equal(sleepers.filter((id) => fs.existsSync(path.join(dir, id))).length, 1);
    assert.ok(rows.every((r: any) => r.charged_microcredits === 0n));
    assert.deepEqual(await balance(srv, key), before);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
