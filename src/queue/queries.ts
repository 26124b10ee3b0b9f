/**
 * The SQL of the queue. pg-boss owns its tables; we write them through its public API (send) everywhere
 * but here: the job row a run's creation inserts inside its own statement (jobInsertSql), which saves the
 * request path a round trip (bench row a), and a fan-out's node jobs (JobQueue.enqueueNodes) in one
 * statement; and the deletion of waiting jobs whose nodes ended without them (DROP_NODE_JOBS). That row is tied to pg-boss's `job` columns, so the queue
 * checks them at start (JOB_COLUMNS, JobQueue.start) and refuses to start on any change: an upgrade of
 * pg-boss fails loudly there, not as lost or malformed jobs.
 */

/** pg-boss's schema (its default, named so the one hand-written insert can address its tables). */
export const BOSS_SCHEMA = 'pgboss';

/** The queue every run's jobs go to (JobQueue's RUN_QUEUE). */
export const RUN_QUEUE_NAME = 'run';

/** The columns of pg-boss 10's `job` table that jobInsertSql was written against (sorted). */
export const EXPECTED_JOB_COLUMNS = [
  'created_on', 'data', 'dead_letter', 'expire_in', 'id', 'keep_until', 'name', 'output', 'policy', 'priority',
  'retry_backoff', 'retry_count', 'retry_delay', 'retry_limit', 'singleton_key', 'singleton_on', 'start_after',
  'started_on', 'completed_on', 'state',
].sort();

export const JOB_COLUMNS = `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'job' ORDER BY column_name`;

/**
 * A run-queue job as the body of a data-modifying CTE: the same row pg-boss's send() writes for
 * enqueueRun's options (test/api/runCreate.test.ts compares the two). One job per row of `gate`; `data`,
 * `priority` and `expire` are SQL expressions (placeholders of the caller's statement).
 */
export function jobInsertSql(gate: string, queue: string, data: string, priority: string, expireSeconds: string, idSql = 'gen_random_uuid()'): string {
  return `INSERT INTO ${BOSS_SCHEMA}.job (id, name, data, priority, start_after, singleton_key, singleton_on, dead_letter, expire_in, keep_until, retry_limit, retry_delay, retry_backoff, policy)
  SELECT ${idSql}, q.name, ${data}::jsonb, ${priority}, now(), NULL, NULL, q.dead_letter,
         ${expireSeconds}::numeric * interval '1s',
         now() + CAST(COALESCE((q.retention_minutes * 60)::text, '14 days') AS interval),
         0,
         CASE WHEN COALESCE(q.retry_backoff, false) THEN GREATEST(q.retry_delay, 1) ELSE COALESCE(q.retry_delay, 0) END,
         COALESCE(q.retry_backoff, false),
         q.policy
    FROM ${gate} CROSS JOIN ${BOSS_SCHEMA}.queue q
   WHERE q.name = ${queue}`;
}

/**
 * A data-modifying CTE body that deletes one job still waiting (not fetched by any consumer loop) by its
 * id: a run claimed by the process that created it (JobQueue.runJobInsert's `id`, runs/queries.ts
 * CLAIM_RUN) needs its job no more. A job already fetched is left to its loop, whose claim then finds the
 * run taken. `idSql`: a uuid expression, or NULL for no job.
 */
export function dropWaitingJobSql(queue: string, idSql: string): string {
  return `DELETE FROM ${BOSS_SCHEMA}.job WHERE name = ${queue} AND id = ${idSql} AND state = 'created' RETURNING id`;
}

/** Waiting (not yet fetched) jobs of queue $1 for nodes $3 of workflow run $2 (JobQueue.dropNodeJobs). */
export const DROP_NODE_JOBS = `DELETE FROM ${BOSS_SCHEMA}.job WHERE name = $1 AND state IN ('created', 'retry') AND data->>'runId' = $2 AND data->>'nodeId' = ANY($3::text[])`;

/** The account's other live runs (uses runs_live_by_account), and the run's own priority level. $1 run. */
export const LIVE_AHEAD = `SELECT count(*)::int AS n, (SELECT priority FROM runs WHERE id = $1)::int AS level FROM runs
  WHERE account_id = (SELECT account_id FROM runs WHERE id = $1) AND status IN ('QUEUED', 'RUNNING') AND id <> $1`;

/** What the account is running now: standalone runs plus workflow nodes. $1 run. */
export const RUNNING_NOW = `WITH a AS (SELECT account_id FROM runs WHERE id = $1)
  SELECT (SELECT count(*) FROM runs r, a WHERE r.account_id = a.account_id AND r.status = 'RUNNING' AND r.kind = 'node')::int
       + (SELECT count(*) FROM runs w JOIN node_runs n ON n.run_id = w.id, a WHERE w.account_id = a.account_id AND w.status = 'RUNNING' AND n.status = 'RUNNING')::int AS n`;

/** The account's live runs as a priority (fairness.ts fairPriority), for a job inserted in its run's statement. */
export function livePrioritySql(accountParam: string, minPriority: number): string {
  return `(SELECT GREATEST(${minPriority}, -count(*))::int FROM runs WHERE account_id = ${accountParam}::text AND status IN ('QUEUED', 'RUNNING'))`;
}

/**
 * A job's whole priority in SQL (fairness.ts jobPriority): the run's level in bands of `band`, then its fair
 * share, less `offsetSql` (a batch's later inputs behind its earlier ones). The count is an uncorrelated
 * subquery, so a statement inserting many jobs counts once.
 */
export function levelPrioritySql(accountParam: string, levelSql: string, offsetSql: string, minPriority: number, band: number): string {
  return `(${levelSql}::int * ${band} + GREATEST(${minPriority}, (SELECT -count(*) FROM runs WHERE account_id = ${accountParam}::text AND status IN ('QUEUED', 'RUNNING')) - ${offsetSql}))::int`;
}

/**
 * Where queued jobs stand: for each run with a job waiting in the run queue, how many waiting jobs pg-boss
 * would fetch before its first (its fetch order: priority DESC, created_on, id). Bounded to the first
 * $2 jobs, so a refresh costs the same whatever the backlog. $1 queue name, $2 limit.
 */
export const QUEUE_RANKS = `WITH w AS (
  SELECT data->>'runId' AS run_id, row_number() OVER (ORDER BY priority DESC, created_on, id) - 1 AS ahead
    FROM ${BOSS_SCHEMA}.job WHERE name = $1 AND state IN ('created', 'retry')
   ORDER BY priority DESC, created_on, id LIMIT $2)
  SELECT run_id, min(ahead)::int AS ahead FROM w GROUP BY run_id`;
