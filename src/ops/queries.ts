/**
 * The read-only SQL of ops/: the invariants `atelier doctor` verifies (doctor.ts), each one SQL statement
 * returning one row per violation, and the gauges the metrics read at scrape time (metrics.ts).
 * They run inside one read-only REPEATABLE READ transaction, so every check sees the same snapshot even
 * while the service keeps working. $1 is the threshold in seconds beyond which a run or delivery that
 * should be moving counts as stuck (the sweeper's own backstops act well within it).
 */

export type CheckId = 'ledger_sums' | 'open_reservations' | 'double_charges' | 'stuck_runs' | 'unfinished_workflows' | 'stalled_deliveries' | 'circuit_held_deliveries' | 'node_charges' | 'missing_blobs' | 'budget_spend';

export interface CheckDef {
  id: CheckId;
  title: string;
  /** What holds when the check finds nothing. */
  passes: string;
  sql: string;
  /** Uses the stuck threshold ($1). */
  timed: boolean;
}

import { CIRCUIT_THRESHOLD } from '../events/fairDelivery.js';
import { BUDGET_SPEND_FINDINGS } from '../ledger/queries/budgets.js';

const ENDED = `('COMPLETED', 'FAILED', 'CANCELED')`;
const NODE_TERMINAL = `('COMPLETED', 'FAILED', 'SKIPPED', 'CANCELED')`;
const LIMIT = 1000;

/** Jobs of the run queue that a worker may still pick up (pg-boss's schema exists once any process started the queue). */
export const LIVE_JOBS = `SELECT data->>'runId' AS run_id, data->>'nodeId' AS node_id FROM pgboss.job
  WHERE name = 'run' AND state IN ('created', 'retry', 'active')`;

export const CHECKS: CheckDef[] = [
  {
    id: 'ledger_sums',
    title: 'ledger sums',
    passes: 'every balance equals the sum of its ledger rows',
    timed: false,
    sql: `
WITH sums AS (
  SELECT account_id, sum(posted_delta)::bigint AS posted, sum(reserved_delta)::bigint AS reserved FROM ledger_entries GROUP BY account_id)
SELECT a.id AS account_id, b.account_id IS NULL AS no_balance_row,
       COALESCE(b.posted, 0)::bigint AS balance_posted, COALESCE(s.posted, 0)::bigint AS ledger_posted,
       COALESCE(b.reserved, 0)::bigint AS balance_reserved, COALESCE(s.reserved, 0)::bigint AS ledger_reserved
  FROM accounts a LEFT JOIN account_balances b ON b.account_id = a.id LEFT JOIN sums s ON s.account_id = a.id
 WHERE COALESCE(b.posted, 0) <> COALESCE(s.posted, 0) OR COALESCE(b.reserved, 0) <> COALESCE(s.reserved, 0)
 ORDER BY a.id LIMIT ${LIMIT}`,
  },
  {
    id: 'open_reservations',
    title: 'open reservations',
    passes: 'no hold is left on the ledger for an ended or missing run, and every live run holds what it records',
    timed: false,
    // The recorded hold: a standalone run's reserved_microcredits; a workflow run's is the sum over its nodes.
    sql: `
WITH holds AS (
  SELECT run_id, min(account_id) AS account_id, sum(reserved_delta)::bigint AS held FROM ledger_entries WHERE run_id IS NOT NULL GROUP BY run_id),
recorded AS (
  SELECT r.id, r.status, r.kind,
         CASE WHEN r.kind = 'workflow' THEN (SELECT COALESCE(sum(n.reserved_microcredits), 0) FROM node_runs n WHERE n.run_id = r.id)
              ELSE r.reserved_microcredits END::bigint AS recorded
    FROM runs r)
SELECT h.run_id, h.account_id, h.held, x.status, x.kind, x.recorded
  FROM holds h LEFT JOIN recorded x ON x.id = h.run_id
 WHERE h.held < 0
    OR (h.held <> 0 AND (x.id IS NULL OR x.status IN ${ENDED}))
    OR (x.id IS NOT NULL AND x.status NOT IN ${ENDED} AND h.held <> x.recorded)
 ORDER BY h.run_id LIMIT ${LIMIT}`,
  },
  {
    id: 'double_charges',
    title: 'charges',
    passes: 'every run was reserved at most once and charged once per completed unit, exactly what it records',
    timed: false,
    // Units: a standalone run is one; a workflow run has one per node that ran and was charged. A workflow
    // may be charged more than its estimate (a node priced at its actual, edge-fed input); node_charges checks those.
    sql: `
WITH per_run AS (
  SELECT run_id, count(*) FILTER (WHERE kind = 'reserve')::int AS reserves, count(*) FILTER (WHERE kind = 'capture')::int AS captures,
         COALESCE(-sum(posted_delta) FILTER (WHERE kind = 'capture'), 0)::bigint AS captured
    FROM ledger_entries WHERE run_id IS NOT NULL GROUP BY run_id),
runs_x AS (
  SELECT r.id, r.kind, r.status, r.estimated_microcredits,
         CASE WHEN r.kind = 'workflow' THEN (SELECT COALESCE(sum(n.charged_microcredits), 0) FROM node_runs n WHERE n.run_id = r.id)
              ELSE r.charged_microcredits END::bigint AS charged,
         CASE WHEN r.kind = 'workflow' THEN (SELECT count(*) FROM node_runs n WHERE n.run_id = r.id AND n.charged_microcredits > 0)
              ELSE CASE WHEN r.status = 'COMPLETED' AND r.charged_microcredits > 0 THEN 1 ELSE 0 END END::int AS units,
         -- A workflow reserves its estimate, then may reserve more once per node priced above its share (workflows/readyNode.ts).
         CASE WHEN r.kind = 'workflow' THEN 1 + (SELECT count(*) FROM node_runs n WHERE n.run_id = r.id) ELSE 1 END::int AS max_reserves
    FROM runs r)
SELECT p.run_id, x.kind, x.status, p.reserves, x.max_reserves, p.captures, p.captured, x.charged, x.units, x.estimated_microcredits AS estimated
  FROM per_run p LEFT JOIN runs_x x ON x.id = p.run_id
 WHERE p.reserves > COALESCE(x.max_reserves, 1) OR p.captures > COALESCE(x.units, 0) OR p.captured <> COALESCE(x.charged, 0)
    OR (x.kind = 'node' AND x.charged > x.estimated_microcredits)
 ORDER BY p.run_id LIMIT ${LIMIT}`,
  },
  {
    id: 'stuck_runs',
    title: 'stuck runs',
    passes: 'every queued or running run is held by a live worker or has a job a worker can pick up',
    timed: true,
    sql: `
WITH jobs AS (LIVE_JOBS),
reasons AS (
  SELECT r.id, r.kind, r.status, 'its worker''s lease lapsed ' || floor(extract(epoch FROM now() - r.lease_expires_at))::bigint || ' s ago and no worker took it over' AS reason
    FROM runs r WHERE r.kind = 'node' AND r.status = 'RUNNING' AND r.lease_expires_at < now() - make_interval(secs => $1)
  UNION ALL
  SELECT r.id, r.kind, r.status, 'queued ' || floor(extract(epoch FROM now() - r.enqueued_at))::bigint || ' s ago and no job on the queue can pick it up'
    FROM runs r WHERE r.kind = 'node' AND r.status = 'QUEUED' AND r.enqueued_at < now() - make_interval(secs => $1)
     AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.run_id = r.id AND j.node_id IS NULL)
  UNION ALL
  SELECT r.id, r.kind, r.status, 'past its Cancel-After deadline by ' || floor(extract(epoch FROM now() - r.cancel_after))::bigint || ' s'
    FROM runs r WHERE r.status IN ('QUEUED', 'RUNNING') AND r.cancel_after < now() - make_interval(secs => $1)
  UNION ALL
  SELECT r.id, r.kind, r.status, 'node ' || n.node_id || ': its worker''s lease lapsed ' || floor(extract(epoch FROM now() - n.lease_expires_at))::bigint || ' s ago and no worker took it over'
    FROM node_runs n JOIN runs r ON r.id = n.run_id
   WHERE r.status = 'RUNNING' AND n.status = 'RUNNING' AND n.lease_expires_at < now() - make_interval(secs => $1)
  UNION ALL
  SELECT r.id, r.kind, r.status, 'node ' || n.node_id || ': queued and no job on the queue can pick it up'
    FROM node_runs n JOIN runs r ON r.id = n.run_id
   WHERE r.status = 'RUNNING' AND n.status = 'QUEUED' AND r.enqueued_at < now() - make_interval(secs => $1)
     AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.run_id = r.id AND j.node_id = n.node_id)
  UNION ALL
  SELECT r.id, r.kind, r.status, 'nothing is running or queued for it and no job can advance it'
    FROM runs r WHERE r.kind = 'workflow' AND r.status IN ('QUEUED', 'RUNNING') AND r.enqueued_at < now() - make_interval(secs => $1)
     AND NOT EXISTS (SELECT 1 FROM node_runs n WHERE n.run_id = r.id AND n.status IN ('QUEUED', 'RUNNING'))
     AND EXISTS (SELECT 1 FROM node_runs n WHERE n.run_id = r.id AND n.status NOT IN ${NODE_TERMINAL})
     AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.run_id = r.id AND j.node_id IS NULL))
SELECT id AS run_id, kind, status, reason FROM reasons ORDER BY id, reason LIMIT ${LIMIT}`,
  },
  {
    id: 'unfinished_workflows',
    title: 'unfinished workflows',
    passes: 'no workflow run is still open after all of its nodes ended',
    timed: true,
    sql: `
SELECT r.id AS run_id, r.status, count(*)::int AS nodes, floor(extract(epoch FROM now() - max(n.finished_at)))::bigint AS ended_seconds_ago
  FROM runs r JOIN node_runs n ON n.run_id = r.id
 WHERE r.kind = 'workflow' AND r.status IN ('QUEUED', 'RUNNING')
 GROUP BY r.id, r.status
HAVING bool_and(n.status IN ${NODE_TERMINAL}) AND max(n.finished_at) < now() - make_interval(secs => $1)
 ORDER BY r.id LIMIT ${LIMIT}`,
  },
  {
    id: 'stalled_deliveries',
    title: 'webhook deliveries',
    passes: 'no due webhook delivery waits without a deliverer working on it',
    timed: true,
    sql: `
SELECT d.id::text AS delivery_id, d.event_id, d.run_id, d.attempts, floor(extract(epoch FROM now() - d.next_attempt_at))::bigint AS due_seconds_ago
  FROM webhook_deliveries d
 WHERE d.status = 'pending' AND d.next_attempt_at < now() - make_interval(secs => $1)
   AND (d.claimed_until IS NULL OR d.claimed_until < now() - make_interval(secs => $1))
   -- Waiting behind an earlier pending event of the same run is the per-run ordering at work, not a stall.
   AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.run_id = d.run_id AND e.id < d.id AND e.status = 'pending')
   -- A destination whose circuit is open (it kept failing) is being backed off, not stalled.
   AND NOT EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.destination = d.destination AND w.open_until > now() - make_interval(secs => $1))
 ORDER BY d.next_attempt_at LIMIT ${LIMIT}`,
  },
  {
    id: 'circuit_held_deliveries',
    title: 'webhook circuits',
    passes: 'no due webhook delivery has waited behind an open circuit (a receiver that keeps failing) longer than the threshold',
    timed: true,
    // One finding per destination (an account's scheme://host:port, events/fairDelivery.ts): its circuit is
    // open or half-open, and deliveries have been due longer than the threshold. The receiver's owner has
    // work to do; the deliverer is backing off as designed, and other tenants are not held by it.
    sql: `
SELECT w.destination, min(d.account_id) AS account_id, split_part(w.destination, ' ', 2) AS origin, w.failures,
       CASE WHEN w.open_until > now() THEN floor(extract(epoch FROM w.open_until - now()))::bigint ELSE 0 END AS open_for_seconds,
       count(*)::int AS deliveries, floor(extract(epoch FROM now() - min(d.next_attempt_at)))::bigint AS oldest_due_seconds_ago
  FROM webhook_endpoints w JOIN webhook_deliveries d ON d.destination = w.destination
 WHERE w.failures >= ${CIRCUIT_THRESHOLD} AND d.status = 'pending' AND d.next_attempt_at < now() - make_interval(secs => $1)
 GROUP BY w.destination, w.failures, w.open_until
 ORDER BY w.destination LIMIT ${LIMIT}`,
  },  {
    id: 'budget_spend',
    title: 'spend limits',
    passes: "no period's spend passed its limit, and every limit's spend covers the live holds counted in it",
    timed: false,
    sql: BUDGET_SPEND_FINDINGS,
  },
];

/** Whether pg-boss's schema exists yet (it does once any process started the queue). */
export const QUEUE_PRESENT = `SELECT to_regclass('pgboss.job') IS NOT NULL AS present`;
/** LIVE_JOBS when there is no queue yet: no jobs. */
export const NO_JOBS = `SELECT NULL::text AS run_id, NULL::text AS node_id WHERE false`;
/** What the doctor's report counts. */
export interface TotalsRow {
  accounts: number;
  runs: number;
  ledger_entries: number;
}
export const TOTALS = `SELECT (SELECT count(*) FROM accounts)::int AS accounts, (SELECT count(*) FROM runs)::int AS runs,
      (SELECT count(*) FROM ledger_entries)::int AS ledger_entries`;

/** Runs and workflow nodes queued or running, by kind and status (the metrics' run gauges). */
export interface ActiveRunsRow {
  kind: 'node' | 'workflow' | 'workflow_node';
  status: string;
  n: number;
}
export const ACTIVE_RUNS = `
SELECT kind, status, count(*)::int AS n FROM runs WHERE status IN ('QUEUED', 'RUNNING') GROUP BY kind, status
UNION ALL
SELECT 'workflow_node', status, count(*)::int FROM node_runs WHERE status IN ('QUEUED', 'RUNNING') GROUP BY status`;
/** Webhook deliveries waiting to be sent (the metrics' delivery gauge). */
export const PENDING_DELIVERIES = `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`;
