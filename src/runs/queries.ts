import pg from 'pg';
import { entrySql, holdSql } from '../ledger/queries.js';
import { budgetGateSql, budgetTakeSql } from '../ledger/queries/budgets.js';
import { cursorTimeSql } from '../pagination.js';
import { dropWaitingJobSql, RUN_QUEUE_NAME } from '../queue/queries.js';

/**
 * A standalone run created by one statement, committed on its own (all or nothing), in this order:
 * 1. the hold ($8 microcredits, ledger/queries.ts holdSql): no row when the balance cannot cover it or a
 *    spend limit of the account or of the key $17 would be passed (ledger/queries/budgets.ts, which also
 *    counts the hold against those limits), and then nothing below is written (the statement answers no row);
 * 2. the Idempotency-Key claim ($12 key or NULL, $13 request hash), only once funded: a key already
 *    taken raises a unique violation (idempotency_keys_pkey) and the caller looks at the earlier request
 *    (runs/idempotency.ts). The balance row is locked before the key, as in workflow creation, so the two
 *    cannot deadlock;
 * 3. the run row, stamped as enqueued; 4. its ledger row; 5. its queue job (`jobSql`, from JobQueue,
 *    one job per row of the CTE named run).
 * No row back means no balance row for the account or not enough credits (the caller reads the balance to
 * tell). It answers a few columns, not the whole row (RUN_BY_ID has that), so that it can be a prepared
 * statement (Db.queryPrepared).
 * $1 id, $2 account, $3 kind, $4 node type, $5 sub-model, $6 workflow, $7 input, $8 cost, $9 webhook,
 * $10 cancel-after seconds, $11 timeout seconds, $12 idempotency key, $13 request hash, $14 scope, $15 the
 * creating span's traceparent or NULL (tracing/), $16 priority level, $17 the API key; the job's parameters follow.
 */
export function createRunStatement(jobSql: string): string {
  return `
WITH ${budgetGateSql('$2::text', '$17::text', '$8::bigint')} hold AS (
  ${holdSql('$2::text', '$8::bigint', 'budget_ok', '$8::bigint > 0 AND budget_ok.ok')}
)${budgetTakeSql({ account: '$2::text', run: '$1::text', amount: '$8::bigint', hold: 'hold', webhook: '$9::jsonb', workflow: 'COALESCE($6::text, $4::text)', newRun: true })}, funded AS (
  SELECT 1 FROM hold UNION ALL SELECT 1 WHERE $8::bigint = 0
), claim AS (
  ${claimKeySql('$2::text', '$12::text', '$14::text', '$13::text', '$1::text', 'funded')}
  RETURNING 1
), gate AS (
  SELECT 1 FROM claim UNION ALL SELECT 1 FROM funded WHERE $12::text IS NULL
), run AS (
  INSERT INTO runs (id, account_id, kind, node_type, sub_model_id, workflow_id, status, input, estimated_microcredits, reserved_microcredits, webhook, cancel_after, timeout_seconds, enqueued_at, trace_parent, priority, key_id)
  SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, 'QUEUED', $7::jsonb, $8::bigint, $8::bigint, $9::jsonb,
         CASE WHEN $10::int IS NULL THEN NULL ELSE now() + make_interval(secs => $10::int) END, $11::int, now(), $15::text, $16::smallint, $17::text
    FROM gate
  RETURNING *
), entry AS (
  ${entrySql({ account: 'run.account_id', kind: `'reserve'`, posted: '0', reserved: 'run.estimated_microcredits', run: 'run.id', note: 'NULL' }, 'run', 'run.estimated_microcredits > 0')}
), job AS (
  ${jobSql}
)
SELECT id, account_id, kind, node_type, sub_model_id, status, estimated_microcredits, reserved_microcredits, created_at, enqueued_at, priority FROM run`;
}

/**
 * The one Idempotency-Key claim (model and workflow runs alike): a plain insert, so a key already taken
 * raises idempotency_keys_pkey and the caller's one path (runs/idempotency.ts) looks at the earlier
 * request. One claim per row of `from` (a gate of the statement), or one when `from` is not given.
 */
export function claimKeySql(account: string, key: string, scope: string, hash: string, runId: string, from?: string): string {
  return `INSERT INTO idempotency_keys (account_id, key, scope, request_hash, run_id)
  SELECT ${account}, ${key}, ${scope}, ${hash}, ${runId}${from ? ` FROM ${from}` : ''} WHERE ${key} IS NOT NULL`;
}

export const CLAIM_KEY = claimKeySql('$1::text', '$2::text', '$3::text', '$4::text', '$5::text');

/** The run has a job in flight from now (the sweeper's STALE_QUEUED counts from there). */
export const STAMP_ENQUEUED = `UPDATE runs SET enqueued_at = now() WHERE id = $1`;

/** A row of runs as `SELECT *` answers it (int8 columns are bigint: db/pool.ts sets that parser). */
export interface RunRow {
  id: string;
  account_id: string;
  kind: string;
  node_type: string | null;
  sub_model_id: string | null;
  workflow_id: string | null;
  status: string;
  input: any;
  output: any;
  error: string | null;
  error_code: string | null;
  estimated_microcredits: bigint;
  reserved_microcredits: bigint;
  charged_microcredits: bigint;
  progress: number | null;
  progress_message: string | null;
  webhook: any;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  cancel_after: Date | null;
  timeout_seconds: number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  enqueued_at: Date;
  graph: any;
  route: any;
  priority: number;
  batch_id: string | null;
  batch_index: number | null;
  key_id: string | null;
  trace_parent: string | null;
}

/** A run of kind 'node' (a model run), which always names its model. */
export type ModelRunRow = RunRow & { node_type: string };

/** A run of kind 'workflow', which always names its workflow. */
export type WorkflowRunRow = RunRow & { workflow_id: string };

/** What createRunStatement answers: the new run's summary, or no row when the hold was refused. */
export type CreatedRunRow = Pick<RunRow, 'id' | 'account_id' | 'kind' | 'node_type' | 'sub_model_id' | 'status' | 'estimated_microcredits' | 'reserved_microcredits' | 'created_at' | 'enqueued_at' | 'priority'>;

/** LIST_RUNS and LIST_WORKFLOW_RUNS: the run and its cursor text. */
export type ListedRunRow = RunRow & { cursor_at: string };

/** LIST_ALL_RUNS: summary columns of either kind of run. */
export interface RunSummaryRow {
  id: string;
  kind: string;
  node_type: string | null;
  workflow_id: string | null;
  status: string;
  estimated_microcredits: bigint;
  charged_microcredits: bigint;
  created_at: Date;
  cursor_at: string;
  started_at: Date | null;
  finished_at: Date | null;
  workflow_name: string | null;
  workflow_slug: string | null;
  node_count: number | null;
  cached_count: number | null;
}

export const RUN_BY_ID = `SELECT * FROM runs WHERE id = $1`;
export const RUN_STATUS = `SELECT status FROM runs WHERE id = $1`;
/** A run's kind, if it is the account's (MCP's tools tell model runs from workflow runs by it). */
export const RUN_KIND_OF_ACCOUNT = `SELECT kind FROM runs WHERE id = $1 AND account_id = $2`;
/** A run locked before it ends, with the hold its end settles. */

export const EXISTING_IDEMPOTENCY = `SELECT scope, request_hash, run_id, created_at > now() - interval '24 hours' AS fresh FROM idempotency_keys WHERE account_id = $1 AND key = $2`;
export const DROP_STALE_IDEMPOTENCY = `DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND created_at <= now() - interval '24 hours'`;

/**
 * Takes a run for execution: a queued one, or a running one whose worker's lease lapsed (the worker died).
 * Returns the status it had before, so run.started is emitted only once.
 *
 * The per-account concurrency limit (queue/fairness.ts; $4, 0 for none) is checked by the same statement,
 * under the run's row lock: a queued run of an account already running $4 runs or workflow nodes is not
 * taken, and the answer is one row with `id` null and `account_running` the count, so the caller puts its job
 * back for later. A run whose lease lapsed is taken whatever the count (it is one of the runs counted).
 * No row at all: an unknown run.
 *
 * $5: the run's job when the process that created the run claims it itself (runs/inlineClaims.ts), else
 * NULL. That job, still waiting, is deleted by the claim's own statement whatever the claim's outcome: a
 * run taken needs it no more, and a run over its account's share gets a later job from the caller.
 */
export const CLAIM_RUN = `
WITH prev AS (SELECT id, status, account_id FROM runs WHERE id = $1 FOR UPDATE),
busy AS (
  SELECT prev.id, CASE WHEN prev.status = 'QUEUED' AND $4::int > 0 THEN
      (SELECT count(*) FROM runs r WHERE r.account_id = prev.account_id AND r.status = 'RUNNING' AND r.kind = 'node')::int
    + (SELECT count(*) FROM runs w JOIN node_runs n ON n.run_id = w.id WHERE w.account_id = prev.account_id AND w.status = 'RUNNING' AND n.status = 'RUNNING')::int
    ELSE 0 END AS account_running
  FROM prev),
dropped AS (${dropWaitingJobSql(pg.escapeLiteral(RUN_QUEUE_NAME), '$5::uuid')}),
claimed AS (
UPDATE runs r SET status = 'RUNNING', started_at = COALESCE(r.started_at, now()), attempts = r.attempts + 1,
       lease_owner = $2, lease_expires_at = now() + make_interval(secs => $3)
  FROM prev, busy
 WHERE r.id = prev.id AND ((prev.status = 'QUEUED' AND ($4::int <= 0 OR busy.account_running < $4::int))
       OR (prev.status = 'RUNNING' AND r.lease_expires_at < now()))
RETURNING r.*, prev.status AS previous_status)
SELECT claimed.*, busy.account_running, prev.status AS status_before FROM busy JOIN prev ON prev.id = busy.id LEFT JOIN claimed ON true`;

/** What CLAIM_RUN answers: the run, started now or before, and the status it had. */
export type ClaimedRunRow = ModelRunRow & { started_at: Date; previous_status: string };

/** CLAIM_RUN's one row: the claimed run, or `id` null when it was not taken (`account_running` says why). */
export type ClaimAnswer = (ClaimedRunRow | { [K in keyof ClaimedRunRow]: null }) & { account_running: number; status_before: string };

export const PROGRESS = `UPDATE runs SET progress = $3, progress_message = $4 WHERE id = $1 AND status = 'RUNNING' AND lease_owner = $2`;

/**
 * Ends a run exactly once: only the lease holder, only from RUNNING (or QUEUED for cancels). The row is locked
 * first (`prev`), so the hold it returns (`held_microcredits`, the reservation before the settle) is the one
 * settled, in the same statement. $8: the served route's price for a routed run (charged when below the hold),
 * null for the hold; $9: the route report; $10 and $11: the engine's last progress report (fraction, message)
 * when the settle writes it in place of PROGRESS (runs/finalProgress.ts), $10 null for none.
 */
export const FINISH_RUN = `WITH prev AS (SELECT id, reserved_microcredits FROM runs WHERE id = $1 FOR UPDATE)
UPDATE runs SET status = $2, output = $3, error = $4, error_code = $7, finished_at = now(), lease_owner = NULL,
       progress = CASE WHEN $2 = 'COMPLETED' THEN 1 ELSE COALESCE($10::real, progress) END,
       progress_message = CASE WHEN $10::real IS NULL THEN progress_message ELSE $11::text END,
       charged_microcredits = CASE WHEN $2 = 'COMPLETED' THEN least(prev.reserved_microcredits, COALESCE($8::bigint, prev.reserved_microcredits)) ELSE 0 END,
       route = COALESCE($9::jsonb, route),
       reserved_microcredits = 0
  FROM prev
 WHERE runs.id = prev.id AND runs.status = ANY($5::text[]) AND ($6::text IS NULL OR runs.lease_owner = $6)
 RETURNING runs.*, prev.reserved_microcredits AS held_microcredits`;

/** What FINISH_RUN answers: the ended run and the hold it had. */
export type FinishedRunRow = ModelRunRow & { held_microcredits: bigint };

export const LIST_RUNS = `SELECT *, ${cursorTimeSql('created_at')} AS cursor_at FROM runs WHERE account_id = $1 AND kind = $2
   AND ($3::timestamptz IS NULL OR (created_at, id) < ($3, $4))
 ORDER BY created_at DESC, id DESC LIMIT $5`;

export const EXPIRED_LEASES = `SELECT id FROM runs WHERE kind = 'node' AND status = 'RUNNING' AND lease_expires_at < now() ORDER BY lease_expires_at LIMIT 100`;
export const PAST_DEADLINE = `SELECT id, kind FROM runs WHERE status IN ('QUEUED', 'RUNNING') AND cancel_after < now() LIMIT 100`;
export const EXPIRED_NODE_LEASES = `SELECT run_id, node_id FROM node_runs WHERE status = 'RUNNING' AND lease_expires_at < now() LIMIT 100`;
/** Workflow runs with no node queued or running and no job in flight recently: their advance step was lost. */
export const STALLED_WORKFLOWS = `UPDATE runs r SET enqueued_at = now() WHERE r.id IN (
  SELECT id FROM runs WHERE kind = 'workflow' AND status IN ('QUEUED', 'RUNNING') AND enqueued_at < now() - make_interval(secs => $1)
     AND NOT EXISTS (SELECT 1 FROM node_runs n WHERE n.run_id = runs.id AND n.status IN ('QUEUED', 'RUNNING'))
   LIMIT 100 FOR UPDATE SKIP LOCKED) RETURNING id`;
/** Standalone runs still QUEUED long after their job was sent (the job was lost with a crashed worker). */
export const STALE_QUEUED = `UPDATE runs r SET enqueued_at = now() WHERE r.id IN (
  SELECT id FROM runs WHERE kind = 'node' AND status = 'QUEUED' AND enqueued_at < now() - make_interval(secs => $1)
   LIMIT 100 FOR UPDATE SKIP LOCKED) RETURNING id`;
/** Workflow nodes QUEUED long ago whose job never got a worker. */
export const STALE_QUEUED_NODES = `SELECT n.run_id, n.node_id FROM node_runs n JOIN runs r ON r.id = n.run_id
  WHERE n.status = 'QUEUED' AND r.status = 'RUNNING' AND r.enqueued_at < now() - make_interval(secs => $1) LIMIT 100`;
export const DROP_OLD_IDEMPOTENCY = `DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'`;

/** Runs of both kinds, newest first, with the workflow's name where there is one (the web app's run list). */
export const LIST_ALL_RUNS = `SELECT r.id, r.kind, r.node_type, r.workflow_id, r.status, r.estimated_microcredits, r.charged_microcredits,
       r.created_at, ${cursorTimeSql('r.created_at')} AS cursor_at, r.started_at, r.finished_at, w.name AS workflow_name, w.slug AS workflow_slug,
       nr.node_count, nr.cached_count
  FROM runs r LEFT JOIN workflows w ON w.id = r.workflow_id
  LEFT JOIN LATERAL (SELECT count(*)::int AS node_count, (count(*) FILTER (WHERE cached))::int AS cached_count FROM node_runs WHERE run_id = r.id) nr ON r.kind = 'workflow'
 WHERE r.account_id = $1 AND ($2::timestamptz IS NULL OR (r.created_at, r.id) < ($2, $3))
 ORDER BY r.created_at DESC, r.id DESC LIMIT $4`;

/** A stopping worker gives a run back: lease released at once, and the attempt not counted. */
export const HAND_BACK_RUN = `UPDATE runs SET lease_owner = NULL, lease_expires_at = now() - interval '1 second', attempts = greatest(attempts - 1, 0)
  WHERE id = $1 AND lease_owner = $2 AND status = 'RUNNING' RETURNING id`;

/** A run's kind, for a queued job that does not carry it (execution/dispatcher.ts). $1 run. */
export const RUN_KIND = `SELECT kind FROM runs WHERE id = $1`;

/** Lease renewal of many runs of one worker in one statement (runs/heartbeats.ts). $1 run ids, $2 owner, $3 lease seconds. */
export const HEARTBEAT_MANY = `UPDATE runs SET lease_expires_at = now() + make_interval(secs => $3)
  WHERE id = ANY($1::text[]) AND status = 'RUNNING' AND lease_owner = $2 RETURNING id`;
