import type { BenchService } from './service.js';
import { sleep } from './stats.js';

/** The most nodes a workflow may hold (workflows/types.ts MAX_WORKFLOW_NODES): request + 98 text nodes + response. */
export const WORKFLOW_NODES = 100;
const MIDDLE = WORKFLOW_NODES - 2;

const requestNode = { id: 'req', type: 'request', data: { fields: [{ id: 'text', name: 'text', type: 'text' }] } };
const textNode = (id: string) => ({ id, type: 'text_template', data: { template: '{{ text }}+' } });
const id = (i: number) => `t${String(i).padStart(3, '0')}`;

/** Request → 98 text_template nodes one after the other → response. */
export function chainGraph() {
  const middle = Array.from({ length: MIDDLE }, (_, i) => textNode(id(i)));
  return {
    nodes: [requestNode, ...middle, { id: 'res', type: 'response' }],
    edges: [
      { source: 'req', sourceHandle: 'text', target: id(0), targetHandle: 'in:text' },
      ...middle.slice(1).map((n, i) => ({ source: id(i), sourceHandle: 'out:output', target: n.id, targetHandle: 'in:text' })),
      { source: id(MIDDLE - 1), sourceHandle: 'out:output', target: 'res', targetHandle: 'result' },
    ],
  };
}

/** Request → 98 text_template nodes side by side → response (which takes all 98). */
export function fanGraph() {
  const middle = Array.from({ length: MIDDLE }, (_, i) => textNode(id(i)));
  return {
    nodes: [requestNode, ...middle, { id: 'res', type: 'response' }],
    edges: [
      ...middle.map((n) => ({ source: 'req', sourceHandle: 'text', target: n.id, targetHandle: 'in:text' })),
      ...middle.map((n) => ({ source: n.id, sourceHandle: 'out:output', target: 'res', targetHandle: 'result' })),
    ],
  };
}

export async function api(svc: BenchService, key: string, method: string, p: string, body?: unknown): Promise<any> {
  const r = await fetch(svc.url + p, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const json = await r.json() as any;
  if (r.status >= 300) throw new Error(`${method} ${p} → ${r.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

/** One finished workflow run, timed by the database's own clock. */
export interface TimedRun {
  runId: string;
  /** created → finished, ms. */
  totalMs: number;
  /** Sum of the uncached nodes' started → finished, ms. */
  nodeSumMs: number;
  /** Time at least one uncached node was running (the union of their started → finished), ms: the sum, for a chain. */
  nodeBusyMs: number;
  nodes: number;
  cached: number;
  /** created → the first node's start, ms. */
  firstStartMs: number;
  /** Each uncached node's [start, end] in ms after the run's creation, by start. */
  spans: Array<[number, number]>;
}

/** Starts a run of `workflowId` and waits for it to complete; its times come from the database. */
export async function runTimed(svc: BenchService, key: string, workflowId: string, text: string): Promise<TimedRun> {
  const { runId } = await api(svc, key, 'POST', '/v1/runs', { workflowId, values: { req: { text } } });
  const deadline = Date.now() + 300_000;
  for (;;) {
    const r = (await svc.services.db.query(`SELECT status, extract(epoch FROM finished_at - created_at) * 1000 AS ms FROM runs WHERE id = $1`, [runId])).rows[0];
    if (r.status === 'COMPLETED') {
      const rows = (await svc.services.db.query(
        `SELECT n.cached, extract(epoch FROM n.started_at - r.created_at) * 1000 AS s, extract(epoch FROM n.finished_at - r.created_at) * 1000 AS e
           FROM node_runs n JOIN runs r ON r.id = n.run_id WHERE n.run_id = $1`, [runId])).rows as Array<{ cached: boolean; s: string | null; e: string | null }>;
      const spans = rows.filter((x) => !x.cached && x.s !== null).map((x) => [Number(x.s), Number(x.e)] as [number, number]).sort((a, b) => a[0] - b[0]);
      let busy = 0;
      let reach = Number.NEGATIVE_INFINITY;
      for (const [s, e] of spans) {
        if (e > reach) busy += e - Math.max(s, reach);
        reach = Math.max(reach, e);
      }
      return {
        runId, totalMs: Number(r.ms), nodeSumMs: spans.reduce((a, [s, e]) => a + e - s, 0), nodeBusyMs: busy,
        nodes: rows.length, cached: rows.filter((x) => x.cached).length, firstStartMs: spans[0]?.[0] ?? Number.NaN, spans,
      };
    }
    if (r.status === 'FAILED' || r.status === 'CANCELED') throw new Error(`workflow run ${runId} ended ${r.status}`);
    if (Date.now() > deadline) throw new Error(`workflow run ${runId} did not finish`);
    await sleep(10);
  }
}
