-- Priority and batch runs (issue 29 items 4 and 5).
-- A run's priority: 0 is normal; a create may ask for less (down to -10) or, up to its key's max_priority
-- (set by the operator), for more. The queue orders jobs by it first (queue/fairness.ts), fair shares second.
ALTER TABLE runs ADD COLUMN priority smallint NOT NULL DEFAULT 0 CHECK (priority BETWEEN -10 AND 10);
ALTER TABLE api_keys ADD COLUMN max_priority smallint NOT NULL DEFAULT 0 CHECK (max_priority BETWEEN 0 AND 10);

-- A batch: N inputs of one model created by one call (runs/batches.ts) with one hold of the whole price.
-- Each input is its own run (batch_id, batch_index) with its own charge or refund; the batch's progress is
-- counted from its runs when read.
CREATE TABLE batches (
  id                      text PRIMARY KEY,
  account_id              text NOT NULL REFERENCES accounts(id),
  node_type               text NOT NULL,
  sub_model_id            text,
  size                    integer NOT NULL CHECK (size BETWEEN 1 AND 100),
  estimated_microcredits  bigint NOT NULL CHECK (estimated_microcredits >= 0),
  priority                smallint NOT NULL DEFAULT 0,
  created_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX batches_account_created ON batches (account_id, created_at DESC, id DESC);
ALTER TABLE runs ADD COLUMN batch_id text REFERENCES batches(id);
ALTER TABLE runs ADD COLUMN batch_index integer;
CREATE INDEX runs_batch ON runs (batch_id, batch_index) WHERE batch_id IS NOT NULL;
