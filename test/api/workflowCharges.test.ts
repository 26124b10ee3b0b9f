import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { balance, waitForStatus } from '../helpers/poll.js';
import { runDoctor } from '../../src/ops/doctor.js';
import { EDGE_FED_VIDEO as VIDEO, edgeFedWorkflow, words } from '../helpers/edgeFedWorkflow.js';

/**
 * A workflow node is charged price(model, the input it actually ran with), the very figure a standalone
 * run of that input costs, reserved before it runs (issue 15: edge-fed values were priced at defaults, so a
 * 60 s video cost as 5 s). The duration reaches ken_burns_video along an edge from word_count, so it is
 * known only when that node is ready.
 */
let srv: TestServer;
let image: string;
before(async () => {
  srv = await startTestServer({ ATELIER_ALLOW_PRIVATE_URLS: '1' });
  image = `data:image/png;base64,${(await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 120, b: 40 } } }).png().toBuffer()).toString('base64')}`;
});
after(async () => {
  await srv.close();
});



async function standalonePrice(key: string, duration: number): Promise<number> {
  const est = await srv.request('POST', '/v1/nodes/estimate-credits', { key, body: { nodeType: 'ken_burns_video', input: { image_url: image, duration, ...VIDEO } } });
  assert.equal(est.status, 200, est.text);
  return est.body.estimates[0].microcredits;
}

async function ledgerMatchesBalances(): Promise<void> {
  const report = await runDoctor(srv.services.db, { stuckAfterSeconds: 3600, catalog: srv.services.catalog });
  assert.ok(report.ok, JSON.stringify(report.findings, null, 1));
  assert.ok(report.checks.some((c) => c.id === 'node_charges'));
  const sums = (await srv.services.db.query(`SELECT b.account_id, b.posted, b.reserved, (SELECT sum(posted_delta) FROM ledger_entries l WHERE l.account_id = b.account_id) AS lp,
    (SELECT sum(reserved_delta) FROM ledger_entries l WHERE l.account_id = b.account_id) AS lr FROM account_balances b`)).rows;
  for (const s of sums) {
    assert.equal(BigInt(s.lp ?? 0), s.posted, `posted of ${s.account_id}`);
    assert.equal(BigInt(s.lr ?? 0), s.reserved, `reserved of ${s.account_id}`);
    assert.ok(s.posted - s.reserved >= 0n);
  }
}

describe('workflow nodes are charged the price of the input they ran with', () => {
  test('the 60 s edge-fed ken_burns_video is charged what the standalone 60 s run is charged', async () => {
    const u = await srv.user({ microcredits: 1_000_000n });
    const wf = await edgeFedWorkflow(srv, u.key);
    const standalone = await standalonePrice(u.key, 60);
    assert.equal(standalone, 90_000);

    // The estimate prices the edge-fed duration at its default (5 s) and says so.
    const est = await srv.request('POST', '/v1/workflows/estimate-credits', { key: u.key, body: { nodes: [{ type: 'ken_burns_video', data: VIDEO }] } });
    assert.deepEqual(est.body.estimates[0].pricedAtDefault, ['duration']);
    assert.equal(est.body.estimates[0].microcredits, 7_500);

    const created = await srv.request('POST', '/v1/runs', { key: u.key, body: { workflowId: wf.id, values: { [wf.requestNodeId]: { text: words(60), image } } } });
    assert.equal(created.status, 202, created.text);
    const run = await waitForStatus(srv, u.key, `/v1/runs/${created.body.runId}`, ['COMPLETED', 'FAILED'], 180_000);
    assert.equal(run.status, 'COMPLETED', JSON.stringify(run.nodeRuns.map((n: any) => [n.nodeId, n.status, n.error])));
    const video = run.nodeRuns.find((n: any) => n.nodeId === 'video');
    assert.equal(video.input.duration, 60);
    assert.equal(video.creditUsed, standalone, 'charged as the standalone run of the same input');
    assert.equal(video.actualCredits, standalone);
    assert.equal(run.actualCredits, run.nodeRuns.reduce((s: number, n: any) => s + n.creditUsed, 0));
    assert.ok(run.actualCredits > run.estimatedCredits, 'the estimate priced the duration at its default');

    // The same input as a standalone run is charged the same figure.
    const single = await srv.request('POST', '/v1/nodes/ken_burns_video/run', { key: u.key, body: { input: { image_url: image, duration: 60, ...VIDEO } } });
    assert.equal(single.status, 202, single.text);
    const done = await waitForStatus(srv, u.key, `/v1/nodes/runs/${single.body.runId}`, ['COMPLETED', 'FAILED'], 180_000);
    assert.equal(done.status, 'COMPLETED', done.error);
    assert.equal(done.creditUsed, video.creditUsed);

    // The ledger shows the node's own rows: the top-up reserved before it ran and its capture.
    const rows = (await srv.services.db.query(`SELECT kind, posted_delta, reserved_delta, note FROM ledger_entries WHERE run_id = $1 ORDER BY id`, [created.body.runId])).rows;
    assert.ok(rows.some((r) => r.kind === 'reserve' && /node video priced at its input/.test(r.note)), JSON.stringify(rows, (_, v) => typeof v === 'bigint' ? String(v) : v));
    assert.ok(rows.some((r) => r.kind === 'capture' && r.note === 'node video' && r.posted_delta === -90_000n));
    const b = await balance(srv, u.key);
    assert.equal(b.reservedMicrocredits, 0);
    assert.equal(b.availableBalance, 1_000_000 - run.actualCredits - done.creditUsed);
    await ledgerMatchesBalances();
  });

  test('a cheaper actual input releases the surplus of the estimate', async () => {
    const u = await srv.user({ microcredits: 1_000_000n });
    const wf = await edgeFedWorkflow(srv, u.key);
    const created = await srv.request('POST', '/v1/runs', { key: u.key, body: { workflowId: wf.id, values: { [wf.requestNodeId]: { text: words(2), image } } } });
    assert.equal(created.status, 202, created.text);
    const run = await waitForStatus(srv, u.key, `/v1/runs/${created.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
    assert.equal(run.status, 'COMPLETED');
    const video = run.nodeRuns.find((n: any) => n.nodeId === 'video');
    assert.equal(video.estimatedCredits, 7_500);
    assert.equal(video.creditUsed, await standalonePrice(u.key, 2));
    assert.equal(video.creditUsed, 3_000);
    assert.equal((await balance(srv, u.key)).availableBalance, 1_000_000 - run.actualCredits);
    await ledgerMatchesBalances();
  });

  test('a node whose actual price the balance cannot cover fails INSUFFICIENT_CREDITS, its dependents are skipped, the rest released', async () => {
    const u = await srv.user({ microcredits: 40_000n });
    const wf = await edgeFedWorkflow(srv, u.key);
    const created = await srv.request('POST', '/v1/runs', { key: u.key, body: { workflowId: wf.id, values: { [wf.requestNodeId]: { text: words(60), image } } } });
    assert.equal(created.status, 202, created.text);
    assert.ok(created.body.estimatedCredits <= 40_000, 'the estimate fits the balance');
    const run = await waitForStatus(srv, u.key, `/v1/runs/${created.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
    assert.equal(run.status, 'FAILED');
    const by = Object.fromEntries(run.nodeRuns.map((n: any) => [n.nodeId, n]));
    assert.equal(by.count.status, 'COMPLETED');
    assert.equal(by.video.status, 'FAILED');
    assert.equal(by.video.errorCode, 'INSUFFICIENT_CREDITS');
    assert.match(by.video.error, /90000 microcredits/);
    assert.equal(by.video.creditUsed, 0);
    assert.equal(by.frame.status, 'SKIPPED');
    assert.match(run.error, /video/);
    const b = await balance(srv, u.key);
    assert.equal(b.reservedMicrocredits, 0);
    assert.equal(b.availableBalance, 40_000 - by.count.creditUsed);
    assert.ok(b.availableBalance >= 0);
    await ledgerMatchesBalances();
  });

  test('doctor finds a node charge that differs from the price of its stored input', async () => {
    const u = await srv.user({ microcredits: 1_000_000n });
    const wf = await edgeFedWorkflow(srv, u.key);
    const created = await srv.request('POST', '/v1/runs', { key: u.key, body: { workflowId: wf.id, values: { [wf.requestNodeId]: { text: words(3), image } } } });
    const run = await waitForStatus(srv, u.key, `/v1/runs/${created.body.runId}`, ['COMPLETED', 'FAILED'], 120_000);
    assert.equal(run.status, 'COMPLETED');
    // Store another input than the one that was priced and charged (4.5 k for 3 s): 10 s prices at 15 k.
    await srv.services.db.query(`UPDATE node_runs SET input = jsonb_set(input, '{duration}', '10') WHERE run_id = $1 AND node_id = 'video'`, [created.body.runId]);
    const report = await runDoctor(srv.services.db, { stuckAfterSeconds: 3600, catalog: srv.services.catalog });
    const f = report.findings.filter((x) => x.check === 'node_charges');
    assert.equal(f.length, 1, JSON.stringify(report.findings));
    assert.equal(f[0]!.subject, `${created.body.runId}/video`);
    assert.match(f[0]!.message, /charged 4500 µc but its input prices at 15000/);
    await srv.services.db.query(`UPDATE node_runs SET input = jsonb_set(input, '{duration}', '3') WHERE run_id = $1 AND node_id = 'video'`, [created.body.runId]);
  });
});
