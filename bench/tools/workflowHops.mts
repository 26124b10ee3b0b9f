// Diagnostic: runs the bench's 100-node chain and fan-out/fan-in workflows a few times each (interleaved,
// after a warm-up) and shows where their time went, from the database's timestamps: the run's wall time,
// the time a node was running, the wait before the first node, and the gaps between nodes.
//   node --import tsx bench/tools/workflowHops.mts [ROUNDS]
import { findPostgres } from '../lib/database.ts';
import { startService } from '../lib/service.ts';
import { percentile } from '../lib/stats.ts';
import { api, chainGraph, fanGraph, runTimed, type TimedRun } from '../lib/workflowRuns.ts';

const rounds = Number(process.argv[2] ?? 3);
const pg = await findPostgres();
const svc = await startService(pg, ['all']);
try {
  const key = (await svc.keys(1))[0]!.key;
  const shapes = { chain: await api(svc, key, 'POST', '/v1/workflows', { name: 'chain', ...chainGraph() }), fan: await api(svc, key, 'POST', '/v1/workflows', { name: 'fan', ...fanGraph() }) };
  for (const wf of Object.values(shapes)) await runTimed(svc, key, wf.id, `warm-up ${Date.now()}`);
  const show = (name: string, r: TimedRun) => {
    const gaps: number[] = [];
    for (let i = 1; i < r.spans.length; i++) gaps.push(r.spans[i]![0] - r.spans[i - 1]![1]);
    const last = r.spans.reduce((m, [, e]) => Math.max(m, e), 0);
    console.log(`${name.padEnd(12)} total ${r.totalMs.toFixed(1)} busy ${r.nodeBusyMs.toFixed(1)} overhead ${(r.totalMs - r.nodeBusyMs).toFixed(1)} | first start ${r.firstStartMs.toFixed(1)}, last end→finished ${(r.totalMs - last).toFixed(1)} | node sum ${r.nodeSumMs.toFixed(1)} p50 ${percentile(r.spans.map(([s, e]) => e - s), 50).toFixed(2)} | start gaps p50 ${percentile(gaps, 50).toFixed(2)} p90 ${percentile(gaps, 90).toFixed(2)} | cached ${r.cached}/${r.nodes}`);
  };
  for (let i = 0; i < rounds; i++) {
    for (const [name, wf] of Object.entries(shapes)) {
      const text = `${name} ${i} ${Date.now()}`;
      show(name, await runTimed(svc, key, wf.id, text));
      show(`${name} cached`, await runTimed(svc, key, wf.id, text));
    }
  }
} finally {
  await svc.stop();
  await pg.stop();
}
