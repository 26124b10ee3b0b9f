import pg from 'pg';
import { deliveryInsertSql, eventInsertSql } from '../events/queries.js';
import { entrySql, settleHoldSql } from '../ledger/queries.js';
import { budgetSettleSql } from '../ledger/queries/budgets.js';

/** SQL of workflow runs: their node rows (runService.ts), node execution (executor.ts) and node charging (nodeCharge.ts). */

/**
 * What a workflow run's execution needs that never changes once the run exists (its graph snapshot,
 * owner, request values, webhook and deadline): the executor reads it once per run and process.
 */
export const RUN_PLAN = `SELECT account_id, workflow_id, webhook, input, cancel_after, graph FROM runs WHERE id = $1 AND kind = 'workflow'`;

/** The node rows of some workflow runs. */
export const NODE_RUNS_OF = `SELECT * FROM node_runs WHERE run_id = ANY($1)`;
/** Runs of the account among these ids. */
export const RUNS_OF_ACCOUNT = `SELECT * FROM runs WHERE id = ANY($1) AND account_id = $2`;

/** A new workflow run, QUEUED and holding its estimate ($5). */
export const INSERT_RUN = `INSERT INTO runs (id, account_id, kind, workflow_id, status, input, estimated_microcredits, reserved_microcredits, webhook, cancel_after, graph, key_id)
  VALUES ($1, $2, 'workflow', $3, 'QUEUED', $4, $5, $5, $6, CASE WHEN $7::int IS NULL THEN NULL ELSE now() + make_interval(secs => $7) END, $8, $9) RETURNING *`;

/** A new workflow run's node rows, PENDING and holding their estimates: $2 ids, $3 types, $4 sub-models, $5 estimates. */
export const INSERT_NODE_RUNS = `INSERT INTO node_runs (run_id, node_id, node_type, sub_model_id, status, estimated_microcredits, reserved_microcredits)
  SELECT $1, n.id, n.type, n.sub_model_id, 'PENDING', n.estimate, n.estimate
    FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[]) AS n(id, type, sub_model_id, estimate)`;

/**
 * Serialises everything that decides a workflow run's next step (advance, node settle, cancel): the run row
 * is locked first, always in a statement of its own, so that the statements after it read node states
 * committed by whoever held the lock before (a statement's snapshot is taken before it waits for a lock).
 */
export const LOCK_RUN = `SELECT status FROM runs WHERE id = $1 AND kind = 'workflow' FOR UPDATE`;

/** LOCK_RUN for one run, its id as a literal: the statement a node's settle sends with its BEGIN (Db.tx `first`). */
export function lockRunLiteral(runId: string): string {
  return LOCK_RUN.replace('$1', pg.escapeLiteral(runId));
}

/** The node states an advance decides on (outputs are read only for the nodes that need them: NODE_OUTPUTS). */
export const NODE_STATES = `SELECT node_id, status, reserved_microcredits FROM node_runs WHERE run_id = $1`;
export const NODE_OUTPUTS = `SELECT node_id, output FROM node_runs WHERE run_id = $1 AND node_id = ANY($2) AND status = 'COMPLETED'`;
/** What finishing a run reports: every node's end, and the outputs of those that feed the Response node ($2). */
export const NODE_ENDS = `SELECT node_id, node_type, status, error, CASE WHEN node_id = ANY($2) THEN output END AS output FROM node_runs WHERE run_id = $1`;

/** The columns a worker needs of a node it claimed (CLAIM_NODE, START_NODE); the run's own are in RUN_PLAN. */
const TASK_COLUMNS = 'nr.run_id, nr.node_id, nr.node_type, nr.sub_model_id, nr.input, nr.attempts';

/** Takes a node for execution: a queued one, or a running one whose worker's lease lapsed. */
export const CLAIM_NODE = `UPDATE node_runs nr SET status = 'RUNNING', attempts = nr.attempts + 1, started_at = COALESCE(nr.started_at, now()),
        lease_owner = $3, lease_expires_at = now() + make_interval(secs => $4)
   FROM runs r
  WHERE nr.run_id = $1 AND nr.node_id = $2 AND r.id = nr.run_id AND r.status = 'RUNNING'
    AND (nr.status = 'QUEUED' OR (nr.status = 'RUNNING' AND nr.lease_expires_at < now()))
  RETURNING ${TASK_COLUMNS}`;

/**
 * A ready node the worker that made it ready will run next, at once: held at its price and leased to that
 * worker inside the advance's transaction, instead of queued with a job another worker would race it for.
 * Its start is recorded by START_NODE when the worker actually starts it; if the worker dies first, the
 * lease lapses and the sweeper re-queues it like any node whose worker died. $5 price, $6 worker, $7 lease s.
 */
export const CLAIM_READY_NODE = leaseReadyNodeSql({ run: '$1::text', node: '$2::text', input: '$3::jsonb', key: '$4::text', price: '$5::bigint', worker: '$6::text', seconds: '$7::int' });

/**
 * The one lease of a ready node to a worker (CLAIM_READY_NODE, CLAIM_READY_NODE_UNLESS_CACHED and
 * SETTLE_NODE's `leased` are all this): a PENDING node moves to RUNNING with the input it runs with, its
 * cache key, its price as its hold, and a lease. `where` adds the caller's conditions.
 */
export function leaseReadyNodeSql(p: { run: string; node: string; input: string; key: string; price: string; worker: string; seconds: string }, from?: string, where = 'true'): string {
  return `UPDATE node_runs c SET status = 'RUNNING', input = ${p.input}, cache_key = ${p.key}, reserved_microcredits = ${p.price}, priced_microcredits = ${p.price},
         attempts = c.attempts + 1, lease_owner = ${p.worker}, lease_expires_at = now() + make_interval(secs => ${p.seconds})${from ? `
    FROM ${from}` : ''}
   WHERE c.run_id = ${p.run} AND c.node_id = ${p.node} AND c.status = 'PENDING' AND ${where}`;
}

/**
 * CLAIM_READY_NODE unless the node cache holds an output for its key, in one statement with the cache
 * lookup: for the node a worker runs next when its hold does not move (its price is what it already
 * holds), the common case of a chain. Answers the cached output, if any (the caller checks it is still
 * usable: nodeCache.ts usableOutput), and whether the node was claimed. $8 account.
 */
export const CLAIM_READY_NODE_UNLESS_CACHED = `
WITH hit AS (
  ${cacheLookupSql('$8', '$4')}
), claimed AS (
  ${leaseReadyNodeSql({ run: '$1::text', node: '$2::text', input: '$3::jsonb', key: '$4::text', price: '$5::bigint', worker: '$6::text', seconds: '$7::int' }, undefined, 'NOT EXISTS (SELECT 1 FROM hit)')}
  RETURNING c.node_id
)
SELECT (SELECT output FROM hit) AS cached, EXISTS (SELECT 1 FROM claimed) AS claimed`;

/**
 * The worker starts a node it was given by CLAIM_READY_NODE (nothing, if it was canceled or taken over
 * meanwhile). It commits without waiting for the WAL flush (synchronous_commit off for this statement's
 * own transaction only): it writes nothing but started_at, the lease that makes the node this worker's was
 * committed durably before, and the settle's flush makes it durable with everything before it. A database
 * crash in between loses only that timestamp, and the node is run again after its lease lapses, as it
 * would be anyway. The worker starts the engine one disk flush sooner, on every node of a chain.
 */
export const START_NODE = `WITH nowait AS (SELECT set_config('synchronous_commit', 'off', true))
UPDATE node_runs nr SET started_at = COALESCE(nr.started_at, now())
  FROM nowait
  WHERE nr.run_id = $1 AND nr.node_id = $2 AND nr.status = 'RUNNING' AND nr.lease_owner = $3
  RETURNING ${TASK_COLUMNS}`;

/**
 * A ready node for the queue: held at its price ($5), with the input it runs with and its cache key. The
 * run is stamped with it: its job is in flight from now (the sweeper's STALE_QUEUED_NODES counts from there).
 */
export const QUEUE_NODE = `WITH stamp AS (UPDATE runs SET enqueued_at = now() WHERE id = $1)
  UPDATE node_runs SET status = 'QUEUED', input = $3, cache_key = $4, reserved_microcredits = $5, priced_microcredits = $5
  WHERE run_id = $1 AND node_id = $2`;

export const HEARTBEAT_NODE = `UPDATE node_runs SET lease_expires_at = now() + make_interval(secs => $4)
  WHERE run_id = $1 AND node_id = $2 AND status = 'RUNNING' AND lease_owner = $3 RETURNING node_id`;

export const NODE_PROGRESS = `UPDATE node_runs SET logs = logs || $3::jsonb WHERE run_id = $1 AND node_id = $2 AND jsonb_array_length(logs) < 200`;

/** A stopping worker gives a node back: lease released at once, and the attempt not counted. */
export const HAND_BACK_NODE = `UPDATE node_runs SET lease_owner = NULL, lease_expires_at = now() - interval '1 second', attempts = greatest(attempts - 1, 0)
  WHERE run_id = $1 AND node_id = $2 AND lease_owner = $3 AND status = 'RUNNING' RETURNING node_id`;

/**
 * Ends a node its worker ran, exactly once (only from RUNNING, only by its lease holder), with everything
 * that goes with it, as one statement (the run is already locked, LOCK_RUN): the node's hold captured as
 * its charge (COMPLETED) or released (FAILED), each with its ledger row; a completed node's output into the
 * node cache; its event (and webhook delivery, when $13 names one) in the outbox; the run stamped as in hand
 * ($16: when no advance follows in this transaction; see the sweeper's STALLED_WORKFLOWS). No row back means
 * it was not this worker's to end any more (canceled, or taken over), and then nothing was written.
 *
 * It also does the first step of the advance that follows, for the common case of a chain: the node
 * $17, which the worker found will be ready once this one completes (its only predecessor that runs), is
 * leased to the worker as CLAIM_READY_NODE_UNLESS_CACHED would, if it is still PENDING, holds its price
 * ($20) already and has no cache entry ($19 its key, $18 its input, $21 lease seconds). And it answers every
 * node's state as it was before this statement (the two it changed are the caller's to patch), so the rest
 * of the advance needs no read of its own. One statement rather than ten: it runs once per node, on the path
 * between one node and the next.
 * $1 run, $2 node, $3 status, $4 output, $5 error, $6 worker, $7 error code, $8 account, $9 ledger note,
 * $10 event id, $11 event type, $12 event payload, $13 delivery URL, $14 delivery headers, $15 workflow.
 */
export const SETTLE_NODE = `
WITH o AS (
  SELECT reserved_microcredits AS held FROM node_runs
   WHERE run_id = $1 AND node_id = $2 AND status = 'RUNNING' AND lease_owner = $6::text FOR UPDATE
), settled AS (
  UPDATE node_runs n SET status = $3::text, output = $4::jsonb, error = $5, error_code = $7, finished_at = now(), lease_owner = NULL,
         charged_microcredits = CASE WHEN $3::text = 'COMPLETED' THEN o.held ELSE 0 END, reserved_microcredits = 0
    FROM o
   WHERE n.run_id = $1 AND n.node_id = $2
  RETURNING n.node_id, n.node_type, n.status, n.started_at, n.finished_at, n.cache_key, o.held
), balance AS (
  ${settleHoldSql('$8::text', 's.held', `CASE WHEN $3::text = 'COMPLETED' THEN s.held ELSE 0 END`, 'settled s', 's.held > 0')}
), entry AS (
  ${entrySql({ account: '$8::text', kind: `CASE WHEN $3::text = 'COMPLETED' THEN 'capture' ELSE 'release' END`, posted: `CASE WHEN $3::text = 'COMPLETED' THEN -s.held ELSE 0 END`, reserved: '-s.held', run: '$1', note: '$9' }, 'settled s', 's.held > 0')}
)${budgetSettleSql('$1::text', 's.held', `CASE WHEN $3::text = 'COMPLETED' THEN s.held ELSE 0 END`, 'balance, settled s')}, cached AS (
  ${cacheStoreSql({ account: '$8::text', key: 's.cache_key', nodeType: 's.node_type', output: '$4::jsonb', workflow: '$15', run: '$1' }, 'settled s', `$3::text = 'COMPLETED'`)}
), event AS (
  ${eventInsertSql({ eventId: '$10::text', account: '$8::text', run: '$1', type: '$11', payload: '$12' }, 'settled')}
), delivery AS (
  ${deliveryInsertSql({ eventId: '$10::text', account: '$8::text', run: '$1', url: '$13::text', headers: '$14' }, 'settled, event', '$13::text IS NOT NULL')}
), stamp AS (
  UPDATE runs SET enqueued_at = now() FROM settled WHERE runs.id = $1 AND $16::boolean
), leased AS (
  ${leaseReadyNodeSql({ run: '$1', node: '$17::text', input: '$18::jsonb', key: '$19::text', price: '$20::bigint', worker: '$6::text', seconds: '$21::int' }, 'settled s',
    `s.status = 'COMPLETED' AND c.reserved_microcredits = $20::bigint AND NOT EXISTS (${cacheLookupSql('$8::text', '$19::text')})`)}
  RETURNING c.node_id
)
SELECT s.node_id, s.node_type, s.status, s.started_at, s.finished_at, (SELECT id FROM event) AS event_row, (SELECT node_id FROM leased) AS leased,
       (SELECT json_agg(json_build_array(n.node_id, n.status, n.reserved_microcredits::text)) FROM node_runs n WHERE n.run_id = $1) AS states
  FROM settled s`;

export const FILE_SHAS = `SELECT id, sha256 FROM files WHERE id = ANY($1)`;
export const LIVE_FILES = `SELECT count(*)::int AS n FROM files WHERE id = ANY($1) AND (expires_at IS NULL OR expires_at > now())`;
/**
 * The node cache's one lookup and one store (nodeCache.ts is the module that uses them; SETTLE_NODE and
 * CLAIM_READY_NODE_UNLESS_CACHED embed them). A later store of the same key replaces the entry.
 */
export function cacheLookupSql(account: string, key: string): string {
  return `SELECT output FROM node_cache WHERE account_id = ${account} AND cache_key = ${key}`;
}
export function cacheStoreSql(e: { account: string; key: string; nodeType: string; output: string; workflow: string; run: string }, from?: string, where = 'true'): string {
  return `INSERT INTO node_cache (account_id, cache_key, node_type, output, workflow_id, source_run_id)
  SELECT ${e.account}, ${e.key}, ${e.nodeType}, ${e.output}, ${e.workflow}, ${e.run}${from ? ` FROM ${from}` : ''} WHERE ${where}
  ON CONFLICT (account_id, cache_key) DO UPDATE SET output = EXCLUDED.output, workflow_id = EXCLUDED.workflow_id, source_run_id = EXCLUDED.source_run_id, created_at = now()`;
}
export const CACHE_LOOKUP = cacheLookupSql('$1::text', '$2::text');
export const CACHE_STORE = cacheStoreSql({ account: '$1::text', key: '$2::text', nodeType: '$3::text', output: '$4::jsonb', workflow: '$5::text', run: '$6::text' });

/** Nodes whose charge `atelier doctor` re-prices from their stored input. */
export const CHARGED_NODES = `SELECT n.run_id, n.node_id, n.node_type, n.sub_model_id, n.input, n.charged_microcredits
  FROM node_runs n WHERE n.status = 'COMPLETED' AND n.charged_microcredits > 0 ORDER BY n.run_id, n.node_id`;
