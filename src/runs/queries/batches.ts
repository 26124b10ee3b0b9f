import { entrySql, holdSql } from '../../ledger/queries.js';
import { budgetGateSql, budgetTakeSql } from '../../ledger/queries/budgets.js';
import { claimKeySql } from '../queries.js';

/**
 * A batch created by one statement (runs/batches.ts), all or nothing:
 * 1. one hold of the whole batch's price ($5, ledger/queries.ts holdSql): no row when the balance cannot
 *    cover all of it, and then nothing below is written;
 * 2. the Idempotency-Key claim ($10 key or NULL, $11 request hash; scope 'batch', naming the batch), only
 *    once funded: a key taken before raises idempotency_keys_pkey (runs/idempotency.ts decides);
 * 2b. the batch row; 3. one run per input ($8: a JSON array of { id, subModelId, input, cost, timeout }),
 *    each holding its own price, so each is charged or refunded on its own by runs/settle.ts;
 * 4. one reserve ledger row per run (together exactly the hold); 5. one queue job per run (`jobSql`, from
 *    JobQueue, over the CTE named run).
 * $1 batch id, $2 account, $3 node type, $4 sub-model (as asked), $5 total price, $6 size, $7 priority level,
 * $8 items, $9 webhook, $10 idempotency key, $11 request hash, $12 the API key (the spend limits of the
 * account and of the key gate the whole hold, as a single run's create does; each run's share is recorded
 * apart so that its own settle gives it back) (the job's placeholders follow).
 */
export function createBatchStatement(jobSql: string): string {
  return `
WITH ${budgetGateSql('$2::text', '$12::text', '$5::bigint')} hold AS (
  ${holdSql('$2::text', '$5::bigint', 'budget_ok', '$5::bigint > 0 AND budget_ok.ok')}
), funded AS (
  SELECT 1 FROM hold UNION ALL SELECT 1 WHERE $5::bigint = 0
), claim AS (
  ${claimKeySql('$2::text', '$10::text', `'batch'`, '$11::text', '$1::text', 'funded')}
  RETURNING 1
), gate AS (
  SELECT 1 FROM claim UNION ALL SELECT 1 FROM funded WHERE $10::text IS NULL
), batch AS (
  INSERT INTO batches (id, account_id, node_type, sub_model_id, size, estimated_microcredits, priority)
  SELECT $1::text, $2::text, $3::text, $4::text, $6::int, $5::bigint, $7::smallint FROM gate
  RETURNING id, account_id, created_at
), items AS (
  SELECT (t.ord - 1)::int AS idx, t.item FROM jsonb_array_elements($8::jsonb) WITH ORDINALITY AS t(item, ord)
), run AS (
  INSERT INTO runs (id, account_id, kind, node_type, sub_model_id, status, input, estimated_microcredits, reserved_microcredits,
                    webhook, timeout_seconds, enqueued_at, priority, batch_id, batch_index)
  SELECT i.item->>'id', b.account_id, 'node', $3::text, i.item->>'subModelId', 'QUEUED', i.item->'input',
         (i.item->>'cost')::bigint, (i.item->>'cost')::bigint, $9::jsonb, (i.item->>'timeout')::int, now(), $7::smallint, b.id, i.idx
    FROM batch b CROSS JOIN items i
  RETURNING *
)${budgetTakeSql({ account: '$2::text', run: '(SELECT min(id) FROM run)', amount: '$5::bigint', hold: 'hold', webhook: '$9::jsonb', workflow: '$3::text',
    shares: { from: 'run r', run: 'r.id', amount: 'r.estimated_microcredits' } })}, entry AS (
  ${entrySql({ account: 'run.account_id', kind: `'reserve'`, posted: '0', reserved: 'run.estimated_microcredits', run: 'run.id', note: `'batch ' || run.batch_id` }, 'run', 'run.estimated_microcredits > 0')}
), job AS (
  ${jobSql}
)
SELECT b.id, b.created_at, (SELECT count(*)::int FROM run) AS runs FROM batch b`;
}

/** A batch with its progress counted from its runs (runs_batch index). $1 batch id. */
export const BATCH_BY_ID = `SELECT b.*,
       count(r.id) FILTER (WHERE r.status = 'QUEUED')::int AS queued,
       count(r.id) FILTER (WHERE r.status = 'RUNNING')::int AS running,
       count(r.id) FILTER (WHERE r.status = 'COMPLETED')::int AS completed,
       count(r.id) FILTER (WHERE r.status = 'FAILED')::int AS failed,
       count(r.id) FILTER (WHERE r.status = 'CANCELED')::int AS canceled,
       COALESCE(sum(r.charged_microcredits), 0)::bigint AS charged,
       COALESCE(sum(r.estimated_microcredits) FILTER (WHERE r.status IN ('FAILED', 'CANCELED')), 0)::bigint AS refunded,
       min(r.started_at) AS started_at, max(r.finished_at) AS finished_at
  FROM batches b LEFT JOIN runs r ON r.batch_id = b.id
 WHERE b.id = $1
 GROUP BY b.id`;

/** A batch's runs in input order (summary columns). $1 batch id. */
export const BATCH_RUNS = `SELECT id, batch_index, sub_model_id, status, estimated_microcredits, charged_microcredits, error, error_code, finished_at
  FROM runs WHERE batch_id = $1 ORDER BY batch_index`;

/** A batch's runs still queued or running, to cancel. $1 batch id. */
export const BATCH_LIVE_RUNS = `SELECT id FROM runs WHERE batch_id = $1 AND status IN ('QUEUED', 'RUNNING') ORDER BY batch_index`;
