-- Workflows: user workflows belong to an account; system workflows (account_id NULL) have a slug.
CREATE TABLE workflows (
  id           text PRIMARY KEY,
  account_id   text REFERENCES accounts(id),
  slug         text UNIQUE,
  name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  description  text NOT NULL DEFAULT '',
  category     text,
  graph        jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  CHECK ((account_id IS NULL) = (slug IS NOT NULL))
);
CREATE INDEX workflows_account ON workflows (account_id, updated_at DESC, id DESC);

-- A workflow run executes the graph as it was when the run started.
ALTER TABLE runs ADD COLUMN graph jsonb;
-- When the run's job was last put on the queue (a backstop re-queues runs whose job was lost).
ALTER TABLE runs ADD COLUMN enqueued_at timestamptz NOT NULL DEFAULT now();

CREATE TABLE node_runs (
  run_id                  text NOT NULL REFERENCES runs(id),
  node_id                 text NOT NULL,
  node_type               text NOT NULL,
  sub_model_id            text,
  status                  text NOT NULL CHECK (status IN ('PENDING', 'QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'SKIPPED', 'CANCELED')),
  cached                  boolean NOT NULL DEFAULT false,
  input                   jsonb,
  output                  jsonb,
  error                   text,
  logs                    jsonb NOT NULL DEFAULT '[]',
  cache_key               text,
  estimated_microcredits  bigint NOT NULL DEFAULT 0,
  reserved_microcredits   bigint NOT NULL DEFAULT 0,
  charged_microcredits    bigint NOT NULL DEFAULT 0,
  attempts                integer NOT NULL DEFAULT 0,
  lease_owner             text,
  lease_expires_at        timestamptz,
  started_at              timestamptz,
  finished_at             timestamptz,
  PRIMARY KEY (run_id, node_id)
);
CREATE INDEX node_runs_active ON node_runs (status, lease_expires_at) WHERE status IN ('QUEUED', 'RUNNING');

-- Durable node cache: a node whose model and resolved inputs hash to cache_key reuses these outputs.
CREATE TABLE node_cache (
  account_id     text NOT NULL REFERENCES accounts(id),
  cache_key      text NOT NULL,
  node_type      text NOT NULL,
  output         jsonb NOT NULL,
  workflow_id    text,
  source_run_id  text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, cache_key)
);
CREATE INDEX node_cache_workflow ON node_cache (account_id, workflow_id);
