// Issue 27, finding "a workflow node is started from four places": every statement that queues or leases a
// node is one function (claimNodeSql) in the node rows' owner, and the settle's lease and the cache-aware
// lease of workflows/queries.ts embed that same function's text. Pure: the SQL text only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { claimNodeSql, LEASE_READY_NODE, QUEUE_NODES, START_NODE, TAKE_NODE } from '../../../../src/runs/queries/nodes.js';
import { LEASE_READY_NODE_UNLESS_CACHED, SETTLE_NODE } from '../../../../src/workflows/queries.js';

const flat = (s: string) => s.replace(/\s+/g, ' ').trim();

test('each way of starting a node moves it only from the states it may start from', () => {
  assert.match(flat(QUEUE_NODES), /SET status = 'QUEUED'.*WHERE c\.run_id = \$1 AND c\.node_id = b\.node_id AND c\.status = 'PENDING'$/);
  assert.match(flat(LEASE_READY_NODE), /c\.status = 'PENDING'/);
  assert.match(flat(TAKE_NODE), /nr\.status = 'QUEUED' OR \(nr\.status = 'RUNNING' AND nr\.lease_expires_at < now\(\)\)/);
  assert.match(flat(START_NODE), /nr\.status = 'RUNNING' AND nr\.lease_owner = \$3/);
  for (const sql of [LEASE_READY_NODE, TAKE_NODE]) assert.match(flat(sql), /lease_expires_at = now\(\) \+ make_interval/);
});

test('the settle and the cache-aware lease embed the one lease, not a copy of it', () => {
  const settleLease = claimNodeSql('leased', { run: '$1', node: '$17::text', input: '$18::jsonb', key: '$19::text', price: '$20::bigint', worker: '$6::text', seconds: '$21::int' }, 'settled s', 'X');
  const head = flat(settleLease.slice(0, settleLease.indexOf('WHERE')));
  assert.ok(flat(SETTLE_NODE).includes(head));
  assert.ok(flat(LEASE_READY_NODE_UNLESS_CACHED).includes(flat(LEASE_READY_NODE).replace(/ AND true$/, '')));
  // workflows/ writes no node row itself: the only node_runs writes in its statements come from runs/.
  const own = flat(SETTLE_NODE).split(head).join('');
  assert.equal((own.match(/UPDATE node_runs/g) ?? []).length, 1, 'one node_runs update besides the lease: the settle fragment');
});
