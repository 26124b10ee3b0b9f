/**
 * SQL of workflow nodes (`node_runs`), whose owner is runs/: the statements the workflow executor
 * (workflows/executor.ts) and the workflow run service (workflows/runService.ts) send, and the fragments
 * that workflows/queries.ts embeds in its one-statement settle (SETTLE_NODE).
 */

import pg from 'pg';

/** A row of node_runs as `SELECT *` answers it (int8 columns are bigint: db/pool.ts sets that parser). */
export interface NodeRunRow {
  run_id: string;
  node_id: string;
  node_type: string;
  sub_model_id: string | null;
  status: string;
  cached: boolean;
  input: any;
  output: any;
  error: string | null;
  error_code: string | null;
  logs: any;
  cache_key: string | null;
  estimated_microcredits: bigint;
  reserved_microcredits: bigint;
  charged_microcredits: bigint;
  priced_microcredits: bigint | null;
  /** A routed node: the route that served it and why others did not (execution/routing.ts RouteReport, without the charge). */
  route: { served: string | null; skipped: Array<{ name: string; reason: string }> } | null;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  started_at: Date | null;
  finished_at: Date | null;
}

/** NODE_STATES. */
export type NodeStateRow = Pick<NodeRunRow, 'node_id' | 'status' | 'reserved_microcredits'>;
/** NODE_OUTPUTS. */
export type NodeOutputRow = Pick<NodeRunRow, 'node_id' | 'output'>;
/** NODE_ENDS (output only for the nodes asked for). */
export type NodeEndRow = Pick<NodeRunRow, 'node_id' | 'node_type' | 'status' | 'error' | 'output'>;
/** NODE_CHARGES: charged and still held, summed. */
export interface NodeChargesRow { c: bigint; r: bigint }
/** CANCEL_NODES: each canceled node, the status it had and what it held. */
export interface CanceledNodeRow { node_id: string; was: string; held: bigint }
/** NODE_COUNTS. */
export interface NodeCountsRow { c: number; f: number; charged: bigint }
/** CHARGED_NODES. */
export type ChargedNodeRow = Pick<NodeRunRow, 'run_id' | 'node_id' | 'node_type' | 'sub_model_id' | 'input' | 'charged_microcredits' | 'route'>;
/** What a claim ('taken' or 'started') answers: TASK_COLUMNS. */
export interface NodeTaskRow {
  run_id: string;
  node_id: string;
  node_type: string;
  sub_model_id: string | null;
  input: Record<string, unknown> | null;
  attempts: number;
  /** The hold on the node when it was taken: what a completed node is charged. */
  reserved_microcredits: bigint;
}

/** The node rows of some workflow runs. */
export const NODE_RUNS_OF = `SELECT * FROM node_runs WHERE run_id = ANY($1)`;

/** A new workflow run's node rows, PENDING and holding their estimates: $2 ids, $3 types, $4 sub-models, $5 estimates. */
export const INSERT_NODE_RUNS = `INSERT INTO node_runs (run_id, node_id, node_type, sub_model_id, status, estimated_microcredits, reserved_microcredits)
  SELECT $1, n.id, n.type, n.sub_model_id, 'PENDING', n.estimate, n.estimate
    FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[]) AS n(id, type, sub_model_id, estimate)`;

/** The node states an advance decides on (outputs are read only for the nodes that need them: NODE_OUTPUTS). */
export const NODE_STATES = `SELECT node_id, status, reserved_microcredits FROM node_runs WHERE run_id = $1`;
export const NODE_OUTPUTS = `SELECT node_id, output FROM node_runs WHERE run_id = $1 AND node_id = ANY($2) AND status = 'COMPLETED'`;
/** What finishing a run reports: every node's end, and the outputs of those that feed the Response node ($2). */
export const NODE_ENDS = `SELECT node_id, node_type, status, error, CASE WHEN node_id = ANY($2) THEN output END AS output FROM node_runs WHERE run_id = $1`;
/** What a run's nodes were charged and still hold, summed (finishing a run). */
export const NODE_CHARGES = `SELECT COALESCE(sum(charged_microcredits), 0)::bigint AS c, COALESCE(sum(reserved_microcredits), 0)::bigint AS r FROM node_runs WHERE run_id = $1`;
/** A run's nodes hold nothing any more (its leftover hold was released). */
export const DROP_NODE_HOLDS = `UPDATE node_runs SET reserved_microcredits = 0 WHERE run_id = $1`;

/** The columns a worker needs of a node it claimed ('taken' or 'started'); the run's own are in RUN_PLAN. */
const TASK_COLUMNS = 'nr.run_id, nr.node_id, nr.node_type, nr.sub_model_id, nr.input, nr.attempts, nr.reserved_microcredits';

/** The SQL expressions (placeholders or columns) a claim is written with. */
export interface NodeClaimParams {
  run: string;
  node: string;
  /** The worker that holds the node's lease, and for how many seconds ('taken', 'leased', 'started'). */
  worker?: string;
  seconds?: string;
  /** The input it runs with, its cache key and its price, which becomes its hold ('leased', 'queued'). */
  input?: string;
  key?: string;
  price?: string;
}

/**
 * The one way a workflow node is started: every statement that queues a node or leases it to a worker is
 * this function, by `how`:
 * - `queued`: ready (PENDING) nodes for the queue (`from` names them: several at once), held at its price with the input it runs with and its
 *   cache key; the run is stamped, its job is in flight from now (runs/queries.ts STALE_QUEUED_NODES counts
 *   from there);
 * - `leased`: a ready (PENDING) node leased to the worker that made it ready, which runs it next at once
 *   (instead of queueing a job another worker would race it for); `from`/`where` add the caller's
 *   conditions, as the settle's lease of the next node does (workflows/queries.ts SETTLE_NODE);
 * - `started`: the worker starts a node it was leased ('leased'), nothing if it was canceled or taken over
 *   meanwhile. It commits without waiting for the WAL flush (synchronous_commit off for its own transaction
 *   only): it writes nothing but started_at, the lease was committed durably before, and a crash in between
 *   loses only that timestamp (the node runs again once its lease lapses, as it would anyway);
 * - `taken`: a worker takes a node from the queue: a QUEUED one, or a RUNNING one whose worker's lease lapsed.
 * 'started' and 'taken' answer the node's task columns.
 */
export function claimNodeSql(how: 'queued' | 'leased' | 'started' | 'taken', p: NodeClaimParams, from?: string, where = 'true'): string {
  switch (how) {
    case 'queued':
      return `WITH stamp AS (UPDATE runs SET enqueued_at = now() WHERE id = ${p.run})
  UPDATE node_runs c SET status = 'QUEUED', input = ${p.input}, cache_key = ${p.key}, reserved_microcredits = ${p.price}, priced_microcredits = ${p.price}${from ? `
    FROM ${from}` : ''}
  WHERE c.run_id = ${p.run} AND c.node_id = ${p.node} AND c.status = 'PENDING'`;
    case 'leased':
      return `UPDATE node_runs c SET status = 'RUNNING', input = ${p.input}, cache_key = ${p.key}, reserved_microcredits = ${p.price}, priced_microcredits = ${p.price},
         attempts = c.attempts + 1, lease_owner = ${p.worker}, lease_expires_at = now() + make_interval(secs => ${p.seconds})${from ? `
    FROM ${from}` : ''}
   WHERE c.run_id = ${p.run} AND c.node_id = ${p.node} AND c.status = 'PENDING' AND ${where}`;
    case 'started':
      return `WITH nowait AS (SELECT set_config('synchronous_commit', 'off', true))
UPDATE node_runs nr SET started_at = COALESCE(nr.started_at, now())
  FROM nowait
  WHERE nr.run_id = ${p.run} AND nr.node_id = ${p.node} AND nr.status = 'RUNNING' AND nr.lease_owner = ${p.worker}
  RETURNING ${TASK_COLUMNS}`;
    case 'taken':
      return `UPDATE node_runs nr SET status = 'RUNNING', attempts = nr.attempts + 1, started_at = COALESCE(nr.started_at, now()),
        lease_owner = ${p.worker}, lease_expires_at = now() + make_interval(secs => ${p.seconds})
   FROM runs r
  WHERE nr.run_id = ${p.run} AND nr.node_id = ${p.node} AND r.id = nr.run_id AND r.status = 'RUNNING'
    AND (nr.status = 'QUEUED' OR (nr.status = 'RUNNING' AND nr.lease_expires_at < now()))
  RETURNING ${TASK_COLUMNS}`;
  }
}

/** The claims the executor sends as they are: $1 run, $2 node; then as each names them. */
export const TAKE_NODE = claimNodeSql('taken', { run: '$1', node: '$2', worker: '$3', seconds: '$4' });
export const START_NODE = claimNodeSql('started', { run: '$1', node: '$2', worker: '$3' });
/**
 * TAKE_NODE for whichever node of the run is still QUEUED (the first by id, skipping any another worker is
 * taking), its values as literals: what a worker whose settle leased it nothing sends with that settle's
 * COMMIT (db/pool.ts Db.txThen), to run a sibling of the node it finished (a fan-out) without a queue hop.
 * The sibling's job stays queued and finds it taken (TAKE_NODE answers nothing for a live lease). Unlike
 * 'started', the take waits for its WAL flush: it is what leases the node, so a database crash that lost it
 * would put the node back in the queue while this worker may already be calling a provider for it, and
 * paid work would be started twice.
 */
export function takeQueuedNodeLiteral(runId: string, worker: string, seconds: number): string {
  const run = pg.escapeLiteral(runId);
  return claimNodeSql('taken', {
    run, worker: pg.escapeLiteral(worker), seconds: String(Math.trunc(seconds)),
    node: `(SELECT node_id FROM node_runs WHERE run_id = ${run} AND status = 'QUEUED' ORDER BY node_id LIMIT 1 FOR UPDATE SKIP LOCKED)`,
  });
}

/** START_NODE with its values as literals: the statement a settle or advance sends with its COMMIT (db/pool.ts Db.txThen). */
export function startNodeLiteral(runId: string, nodeId: string, worker: string): string {
  return claimNodeSql('started', { run: pg.escapeLiteral(runId), node: pg.escapeLiteral(nodeId), worker: pg.escapeLiteral(worker) });
}
/** Queues the ready nodes of run $1 an advance found at once (a fan-out's): $2 node ids, $3 inputs (JSON text), $4 cache keys, $5 prices. */
export const QUEUE_NODES = claimNodeSql('queued', { run: '$1', node: 'b.node_id', input: 'b.input::jsonb', key: 'b.key', price: 'b.price' },
  'unnest($2::text[], $3::text[], $4::text[], $5::bigint[]) AS b(node_id, input, key, price)');
export const LEASE_READY_NODE = claimNodeSql('leased', { run: '$1::text', node: '$2::text', input: '$3::jsonb', key: '$4::text', price: '$5::bigint', worker: '$6::text', seconds: '$7::int' });

export const HEARTBEAT_NODE = `UPDATE node_runs SET lease_expires_at = now() + make_interval(secs => $4)
  WHERE run_id = $1 AND node_id = $2 AND status = 'RUNNING' AND lease_owner = $3 RETURNING node_id`;

export const NODE_PROGRESS = `UPDATE node_runs SET logs = logs || $3::jsonb WHERE run_id = $1 AND node_id = $2 AND jsonb_array_length(logs) < 200`;

/** A stopping worker gives a node back: lease released at once, and the attempt not counted. */
export const HAND_BACK_NODE = `UPDATE node_runs SET lease_owner = NULL, lease_expires_at = now() - interval '1 second', attempts = greatest(attempts - 1, 0)
  WHERE run_id = $1 AND node_id = $2 AND lease_owner = $3 AND status = 'RUNNING' RETURNING node_id`;

/**
 * Two CTEs (`o`, `settled`) that end a node its worker ran, exactly once: only from RUNNING, only by its
 * lease holder. A completed node is charged its hold, or — a routed node (execution/routing.ts) — `charge`,
 * the price of the route that served it, never more than the hold (NULL: the hold); `route` is what the
 * node's record keeps of its routes (NULL for an unrouted node). `settled` answers the node's row, what it
 * held (`held`) and what it was charged of that (`charged`, 0 unless completed), for the ledger, cache,
 * event and next lease the embedding statement adds.
 */
export function settleNodeCtes(p: { run: string; node: string; status: string; output: string; error: string; worker: string; errorCode: string; charge: string; route: string }): string {
  return `o AS (
  SELECT reserved_microcredits AS held FROM node_runs
   WHERE run_id = ${p.run} AND node_id = ${p.node} AND status = 'RUNNING' AND lease_owner = ${p.worker} FOR UPDATE
), settled AS (
  UPDATE node_runs n SET status = ${p.status}, output = ${p.output}, error = ${p.error}, error_code = ${p.errorCode}, finished_at = now(), lease_owner = NULL,
         charged_microcredits = CASE WHEN ${p.status} = 'COMPLETED' THEN LEAST(o.held, COALESCE(${p.charge}, o.held)) ELSE 0 END, reserved_microcredits = 0,
         route = ${p.route}
    FROM o
   WHERE n.run_id = ${p.run} AND n.node_id = ${p.node}
  RETURNING n.node_id, n.node_type, n.status, n.started_at, n.finished_at, n.cache_key, o.held, n.charged_microcredits AS charged
)`;
}

/**
 * Ends a node that never ran on a worker (skip, cache hit, bad input): $3 status, $4 error, $5 output,
 * $6 cached, $7 input, $8 cache key (both kept when NULL), $9 error code. Its hold is released by the caller.
 */
export const END_NODE = `UPDATE node_runs SET status = $3, error = $4, output = $5, cached = $6, input = COALESCE($7, input), cache_key = COALESCE($8, cache_key),
         reserved_microcredits = 0, error_code = $9, started_at = COALESCE(started_at, now()), finished_at = now() WHERE run_id = $1 AND node_id = $2`;

/**
 * END_NODE for nodes of run $1 served from the cache, several at once: $2 node ids, $3 outputs, $4 inputs
 * (JSON text), $5 cache keys. Their holds are released by the caller.
 */
export const END_CACHED_NODES = `UPDATE node_runs n SET status = 'COMPLETED', error = NULL, output = b.output::jsonb, cached = true, input = COALESCE(b.input::jsonb, n.input),
         cache_key = COALESCE(b.key, n.cache_key), reserved_microcredits = 0, error_code = NULL, started_at = COALESCE(n.started_at, now()), finished_at = now()
    FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS b(node_id, output, input, key)
   WHERE n.run_id = $1 AND n.node_id = b.node_id`;

/** Cancels a run's unfinished nodes, answering each with the status it had and what it held. */
export const CANCEL_NODES = `UPDATE node_runs n SET status = 'CANCELED', finished_at = now(), lease_owner = NULL, reserved_microcredits = 0
           FROM (SELECT node_id, status AS was, reserved_microcredits AS held FROM node_runs WHERE run_id = $1 FOR UPDATE) o
          WHERE n.run_id = $1 AND n.node_id = o.node_id AND o.was IN ('PENDING', 'QUEUED', 'RUNNING')
          RETURNING n.node_id, o.was, o.held`;

/** A run's nodes counted by end, and what they were charged (a canceled run's event and charge). */
export const NODE_COUNTS = `SELECT count(*) FILTER (WHERE status = 'COMPLETED')::int AS c, count(*) FILTER (WHERE status = 'FAILED')::int AS f, COALESCE(sum(charged_microcredits), 0)::bigint AS charged FROM node_runs WHERE run_id = $1`;

/** Nodes whose charge `atelier doctor` re-prices from their stored input. */
export const CHARGED_NODES = `SELECT n.run_id, n.node_id, n.node_type, n.sub_model_id, n.input, n.charged_microcredits, n.route
  FROM node_runs n WHERE n.status = 'COMPLETED' AND n.charged_microcredits > 0 ORDER BY n.run_id, n.node_id`;
