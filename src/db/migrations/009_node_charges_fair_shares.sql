-- Workflow nodes are charged the price of the input they actually ran with (workflows/readyNode.ts):
-- the price set when the node became ready, and why a node failed in a machine-readable form.
ALTER TABLE node_runs ADD COLUMN priced_microcredits bigint;
ALTER TABLE node_runs ADD COLUMN error_code text;

-- Fair scheduling (queue/fairness.ts) counts each account's live runs at enqueue and at start.
CREATE INDEX runs_live_by_account ON runs (account_id, status) WHERE status IN ('QUEUED', 'RUNNING');

-- Fair webhook delivery (events/deliverer.ts): one row per destination (scheme://host:port) that has
-- failed lately. After `failures` consecutive failures the circuit opens until open_until; then one probe
-- at a time goes out until a delivery succeeds and the row is removed.
ALTER TABLE webhook_deliveries ADD COLUMN destination text
  GENERATED ALWAYS AS (COALESCE(substring(url from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]+'), url)) STORED;
CREATE INDEX webhook_deliveries_destination_due ON webhook_deliveries (destination, next_attempt_at, id) WHERE status = 'pending';
CREATE TABLE webhook_endpoints (
  destination  text PRIMARY KEY,
  failures     integer NOT NULL DEFAULT 0,
  open_until   timestamptz,
  updated_at   timestamptz NOT NULL DEFAULT now()
);

-- Open event streams (SSE) per API key, shared by every API process (http/keyStreams.ts): a stream's row
-- lives while its process renews alive_until; a process that died leaves rows that lapse on their own.
CREATE TABLE open_streams (
  id           text PRIMARY KEY,
  key_id       text NOT NULL,
  holder       text NOT NULL,
  alive_until  timestamptz NOT NULL
);
CREATE INDEX open_streams_key ON open_streams (key_id, alive_until);
CREATE INDEX open_streams_holder ON open_streams (holder);
