-- Run history of retired models, readable through /v1/nodes/deprecated-models/{nodeType}/runs.
CREATE TABLE legacy_runs (
  id            text PRIMARY KEY,
  account_id    text NOT NULL REFERENCES accounts(id),
  node_type     text NOT NULL,
  status        text NOT NULL,
  input         jsonb NOT NULL,
  output        jsonb,
  credit_used   bigint NOT NULL DEFAULT 0,
  created_at    timestamptz NOT NULL,
  finished_at   timestamptz
);
CREATE INDEX legacy_runs_account_type ON legacy_runs (account_id, node_type, created_at DESC, id DESC);

-- Accounts whose sample legacy history has been written (once each).
CREATE TABLE legacy_seeded (
  account_id  text PRIMARY KEY REFERENCES accounts(id),
  seeded_at   timestamptz NOT NULL DEFAULT now()
);
