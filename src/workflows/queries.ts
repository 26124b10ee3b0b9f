/** SQL of workflow node execution (executor.ts) and node charging (nodeCharge.ts). */

/** Takes a node for execution: a queued one, or a running one whose worker's lease lapsed. */
export const CLAIM_NODE = `UPDATE node_runs nr SET status = 'RUNNING', attempts = nr.attempts + 1, started_at = COALESCE(nr.started_at, now()),
        lease_owner = $3, lease_expires_at = now() + make_interval(secs => $4)
   FROM runs r
  WHERE nr.run_id = $1 AND nr.node_id = $2 AND r.id = nr.run_id AND r.status = 'RUNNING'
    AND (nr.status = 'QUEUED' OR (nr.status = 'RUNNING' AND nr.lease_expires_at < now()))
  RETURNING nr.*, r.account_id, r.graph, r.timeout_seconds, r.cancel_after`;

export const HEARTBEAT_NODE = `UPDATE node_runs SET lease_expires_at = now() + make_interval(secs => $4)
  WHERE run_id = $1 AND node_id = $2 AND status = 'RUNNING' AND lease_owner = $3 RETURNING node_id`;

export const NODE_PROGRESS = `UPDATE node_runs SET logs = logs || $3::jsonb WHERE run_id = $1 AND node_id = $2 AND jsonb_array_length(logs) < 200`;

/** A stopping worker gives a node back: lease released at once, and the attempt not counted. */
export const HAND_BACK_NODE = `UPDATE node_runs SET lease_owner = NULL, lease_expires_at = now() - interval '1 second', attempts = greatest(attempts - 1, 0)
  WHERE run_id = $1 AND node_id = $2 AND lease_owner = $3 AND status = 'RUNNING' RETURNING node_id`;

/** Ends a node exactly once: only from RUNNING, only by its lease holder. */
export const SETTLE_NODE = `UPDATE node_runs SET status = $3, output = $4, error = $5, error_code = $7, finished_at = now(), lease_owner = NULL,
        charged_microcredits = CASE WHEN $3 = 'COMPLETED' THEN reserved_microcredits ELSE 0 END, reserved_microcredits = 0
  WHERE run_id = $1 AND node_id = $2 AND status = 'RUNNING' AND lease_owner = $6 RETURNING *`;

export const FILE_SHAS = `SELECT id, sha256 FROM files WHERE id = ANY($1)`;
export const LIVE_FILES = `SELECT count(*)::int AS n FROM files WHERE id = ANY($1) AND (expires_at IS NULL OR expires_at > now())`;
export const CACHE_LOOKUP = `SELECT output FROM node_cache WHERE account_id = $1 AND cache_key = $2`;
export const CACHE_STORE = `INSERT INTO node_cache (account_id, cache_key, node_type, output, workflow_id, source_run_id) VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (account_id, cache_key) DO UPDATE SET output = EXCLUDED.output, workflow_id = EXCLUDED.workflow_id, source_run_id = EXCLUDED.source_run_id, created_at = now()`;
export const QUEUE_NODE = `UPDATE node_runs SET status = 'QUEUED', input = $3, cache_key = $4 WHERE run_id = $1 AND node_id = $2`;

/** A ready node's hold becomes its price (the ledger rows that move it are written by the caller). */
export const SET_NODE_HOLD = `UPDATE node_runs SET reserved_microcredits = $3, priced_microcredits = $3 WHERE run_id = $1 AND node_id = $2`;

/** Nodes whose charge `atelier doctor` re-prices from their stored input. */
export const CHARGED_NODES = `SELECT n.run_id, n.node_id, n.node_type, n.sub_model_id, n.input, n.charged_microcredits
  FROM node_runs n WHERE n.status = 'COMPLETED' AND n.charged_microcredits > 0 ORDER BY n.run_id, n.node_id`;
