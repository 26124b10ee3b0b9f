// Diagnostic: runs the bench's 100-node chain once and shows where each node's time went, from the
// database's timestamps: the hop from one node's finish to the next one's start, and each node's run.
import { findPostgres } from '../lib/database.ts';
import { startService } from '../lib/service.ts';
import { percentile } from '../lib/stats.ts';
const pg = await findPostgres();
const svc = await startService(pg, ['all']);
const key = (await svc.keys(1))[0]!.key;
const N = 98;
const middle = Array.from({ length: N }, (_, i) => ({ id: `t${String(i).padStart(3, '0')}`, type: 'text_template', data: { template: '{{ text }}+' } }));
const nodes = [{ id: 'req', type: 'request', data: { fields: [{ id: 'text', name: 'text', type: 'text' }] } }, ...middle, { id: 'res', type: 'response' }];
const edges = [{ source: 'req', sourceHandle: 'text', target: middle[0]!.id, targetHandle: 'in:text' }, ...middle.slice(1).map((n, i) => ({ source: middle[i]!.id, sourceHandle: 'out:output', target: n.id, targetHandle: 'in:text' })), { source: middle[N - 1]!.id, sourceHandle: 'out:output', target: 'res', targetHandle: 'result' }];
const h = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
const wf = await (await fetch(svc.url + '/v1/workflows', { method: 'POST', headers: h, body: JSON.stringify({ name: 'c', nodes, edges }) })).json() as any;
const run = await (await fetch(svc.url + '/v1/runs', { method: 'POST', headers: h, body: JSON.stringify({ workflowId: wf.id, values: { req: { text: String(Date.now()) } } }) })).json() as any;
for (;;) { const r = (await svc.services.db.query(`SELECT status FROM runs WHERE id = $1`, [run.runId])).rows[0]; if (r.status !== 'QUEUED' && r.status !== 'RUNNING') break; await new Promise((x) => setTimeout(x, 50)); }
const rows = (await svc.services.db.query(`SELECT node_id, started_at, finished_at FROM node_runs WHERE run_id = $1 ORDER BY node_id`, [run.runId])).rows;
const hops: number[] = []; const runs: number[] = [];
for (let i = 0; i < rows.length; i++) { runs.push(rows[i].finished_at - rows[i].started_at); if (i) hops.push(rows[i].started_at - rows[i - 1].finished_at); }
const r = (await svc.services.db.query(`SELECT extract(epoch FROM started_at - created_at)*1000 AS start_ms, extract(epoch FROM finished_at - created_at)*1000 AS total FROM runs WHERE id = $1`, [run.runId])).rows[0];
console.log(`total ${Math.round(r.total)} ms, first start after ${Math.round(r.start_ms)} ms; hop p50 ${percentile(hops, 50)} p90 ${percentile(hops, 90)} sum ${hops.reduce((a, b) => a + b, 0)}; node p50 ${percentile(runs, 50)} sum ${runs.reduce((a, b) => a + b, 0)}`);
await svc.stop(); await pg.stop();
