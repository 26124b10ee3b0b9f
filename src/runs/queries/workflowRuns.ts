import pg from 'pg';
import { cursorTimeSql } from '../../pagination.js';
import type { WorkflowRunRow } from '../queries.js';

/**
 * SQL of workflow runs' own rows (`runs` of kind 'workflow'), whose owner is runs/: what the workflow run
 * service (workflows/runService.ts) and the executor (workflows/executor.ts) send. Their nodes' SQL is
 * in nodes.ts beside this file.
 */

/**
 * What a workflow run's execution needs that never changes once the run exists (its graph snapshot,
 * owner, request values, webhook and deadline): the executor reads it once per run and process.
 */
/** RUN_PLAN's columns. */
export type RunPlanRow = Pick<WorkflowRunRow, 'account_id' | 'workflow_id' | 'webhook' | 'input' | 'cancel_after' | 'graph' | 'trace_parent'>;

export const RUN_PLAN = `SELECT account_id, workflow_id, webhook, input, cancel_after, graph, trace_parent FROM runs WHERE id = $1 AND kind = 'workflow'`;

/** Runs of the account among these ids. */
export const RUNS_OF_ACCOUNT = `SELECT * FROM runs WHERE id = ANY($1) AND account_id = $2`;

/** A new workflow run, QUEUED and holding its estimate ($5); $9 the creating span's traceparent or NULL (tracing/), $10 the API key (its spend limits apply), $11 its priority level (queue/fairness.ts reads it for its every job). */
export const INSERT_RUN = `INSERT INTO runs (id, account_id, kind, workflow_id, status, input, estimated_microcredits, reserved_microcredits, webhook, cancel_after, graph, trace_parent, key_id, priority)
  VALUES ($1, $2, 'workflow', $3, 'QUEUED', $4, $5, $5, $6, CASE WHEN $7::int IS NULL THEN NULL ELSE now() + make_interval(secs => $7) END, $8, $9, $10, $11) RETURNING *`;

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

/** A run of either kind locked whole (a workflow run's cancel reads its owner and webhook). */
export const LOCK_ANY_RUN = `SELECT * FROM runs WHERE id = $1 FOR UPDATE`;

/** A queued workflow run's first advance starts it. */
export const START_RUN = `UPDATE runs SET status = 'RUNNING', started_at = now() WHERE id = $1`;

/** A workflow run ends: $2 status, $3 output, $4 error, $5 what its nodes were charged. */
export const FINISH_WORKFLOW_RUN = `UPDATE runs SET status = $2, output = $3, error = $4, finished_at = now(), charged_microcredits = $5, reserved_microcredits = 0 WHERE id = $1`;

/** A workflow run is canceled: $2 reason, $3 what its nodes were charged before. */
export const CANCEL_WORKFLOW_RUN = `UPDATE runs SET status = 'CANCELED', error = $2, finished_at = now(), reserved_microcredits = 0, charged_microcredits = $3 WHERE id = $1`;

/**
 * The run is stamped as in hand when `when` holds, once per row of `from` (a settle with no advance after
 * it: the sweeper's STALLED_WORKFLOWS counts from there).
 */
export function stampRunSql(run: string, from: string, when: string): string {
  return `UPDATE runs SET enqueued_at = now() FROM ${from} WHERE runs.id = ${run} AND ${when}`;
}

/**
 * A page of an account's workflow runs, newest first: $2 status, $3 workflow, ($4, $5) the cursor, $6 limit,
 * $7 a search escaped for ILIKE (matched against the workflow's name), $8 the same unescaped (matched to the run id).
 */
export const LIST_WORKFLOW_RUNS = `SELECT *, ${cursorTimeSql('created_at')} AS cursor_at FROM runs WHERE account_id = $1 AND kind = 'workflow' AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR workflow_id = $3)
         AND ($4::timestamptz IS NULL OR (created_at, id) < ($4, $5))
         AND ($7::text IS NULL OR id = $8 OR workflow_id IN (SELECT w.id FROM workflows w WHERE (w.account_id = $1 OR w.account_id IS NULL) AND w.name ILIKE '%' || $7 || '%'))
       ORDER BY created_at DESC, id DESC LIMIT $6`;
