import type { BenchPostgres } from '../lib/database.js';
import { row, type Row } from '../lib/report.js';
import { startService, type BenchService } from '../lib/service.js';
import { sleep } from '../lib/stats.js';

const NODES = 100; // request + 98 text nodes + response: the most a workflow may hold

async function api(svc: BenchService, key: string, method: string, p: string, body?: unknown): Promise<any> {
  const r = await fetch(svc.url + p, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const json = await r.json() as any;
  if (r.status >= 300) throw new Error(`${method} ${p} → ${r.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

/** Runs the workflow and returns its wall time from the database's own clock (created → finished) and its nodes' time. */
async function runOnce(svc: BenchService, key: string, workflowId: string, text: string) {
  const { runId } = await api(svc, key, 'POST', '/v1/runs', { workflowId, values: { req: { text } } });
  const deadline = Date.now() + 300_000;
  for (;;) {
    const r = (await svc.services.db.query(`SELECT status, extract(epoch FROM finished_at - created_at) * 1000 AS ms FROM runs WHERE id = $1`, [runId])).rows[0];
    if (r.status === 'COMPLETED') {
      const nodes = (await svc.services.db.query(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE cached)::int AS cached,
                coalesce(sum(extract(epoch FROM finished_at - started_at) * 1000) FILTER (WHERE NOT cached AND started_at IS NOT NULL), 0) AS engine_ms
           FROM node_runs WHERE run_id = $1`, [runId])).rows[0];
      return { totalMs: Number(r.ms), engineMs: Number(nodes.engine_ms), nodes: nodes.n as number, cached: nodes.cached as number };
    }
    if (r.status === 'FAILED' || r.status === 'CANCELED') throw new Error(`chain run ${runId} ended ${r.status}`);
    if (Date.now() > deadline) throw new Error(`chain run ${runId} did not finish`);
    await sleep(10);
  }
}

/**
 * (c) A 100-node chain of text_template nodes: orchestration overhead (the run's wall time minus the time
 * its nodes spent running) against that node time, and the fully cached re-run against the first run.
 */
export async function chainWorkflow(pg: BenchPostgres): Promise<Row[]> {
  const svc = await startService(pg, ['all']);
  try {
    const key = (await svc.keys(1))[0]!.key;
    const middle = Array.from({ length: NODES - 2 }, (_, i) => ({ id: `t${i}`, type: 'text_template', data: { template: '{{ text }}+' } }));
    const nodes = [{ id: 'req', type: 'request', data: { fields: [{ id: 'text', name: 'text', type: 'text' }] } }, ...middle, { id: 'res', type: 'response' }];
    const edges = [
      { source: 'req', sourceHandle: 'text', target: 't0', targetHandle: 'in:text' },
      ...middle.slice(1).map((n, i) => ({ source: `t${i}`, sourceHandle: 'out:output', target: n.id, targetHandle: 'in:text' })),
      { source: `t${NODES - 3}`, sourceHandle: 'out:output', target: 'res', targetHandle: 'result' },
    ];
    const wf = await api(svc, key, 'POST', '/v1/workflows', { name: 'bench chain', nodes, edges });
    // A short warm-up run of another text so the first measured run is not paying for cold code paths.
    await runOnce(svc, key, wf.id, 'warm-up');
    const first = await runOnce(svc, key, wf.id, `bench ${Date.now()}`);
    const overhead = first.totalMs - first.engineMs;
    const values = `again ${Date.now()}`;
    await runOnce(svc, key, wf.id, values);
    const cached = await runOnce(svc, key, wf.id, values);
    return [
      row({ scenario: 'c. 100-node chain', metric: `orchestration overhead (total ${Math.round(first.totalMs)} ms − node time)`, figure: overhead, unit: 'ms', baseline: first.engineMs, baselineLabel: `time its ${first.nodes} nodes ran, ms`, goal: '< 500 ms (≤ 5 ms a node)', met: overhead < 500 }),
      row({ scenario: 'c. 100-node chain', metric: `fully cached re-run (${cached.cached}/${cached.nodes} nodes from cache)`, figure: cached.totalMs, unit: 'ms', baseline: first.totalMs, baselineLabel: 'uncached run, ms', goal: '< 200 ms', met: cached.totalMs < 200 && cached.cached === cached.nodes }),
    ];
  } finally {
    await svc.stop();
  }
}
