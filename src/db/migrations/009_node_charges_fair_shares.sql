-- Workflow nodes are charged the price of the input they actually ran with (workflows/nodeCharge.ts):
-- the price set when the node became ready, and why a node failed in a machine-readable form.
ALTER TABLE node_runs ADD COLUMN priced_microcredits bigint;
ALTER TABLE node_runs ADD COLUMN error_code text;

-- Fair scheduling (queue/fairness.ts) counts each account's live runs at enqueue and at start.
CREATE INDEX runs_live_by_account ON runs (account_id, status) WHERE status IN ('QUEUED', 'RUNNING');
