-- Standalone model runs and (later) workflow runs. Transitions are single guarded UPDATEs.
CREATE TABLE runs (
  id                      text PRIMARY KEY,
  account_id              text NOT NULL REFERENCES accounts(id),
  kind                    text NOT NULL CHECK (kind IN ('node', 'workflow')),
  node_type               text,
  sub_model_id            text,
  workflow_id             text,
  status                  text NOT NULL CHECK (status IN ('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELED')),
  input                   jsonb NOT NULL,
  -- Engine outputs with files as { file: id } references; URLs are signed when the run is read.
  output                  jsonb,
  error                   text,
  estimated_microcredits  bigint NOT NULL CHECK (estimated_microcredits >= 0),
  -- The hold still on the ledger for this run; moves to 0 exactly once, by capture or release.
  reserved_microcredits   bigint NOT NULL DEFAULT 0 CHECK (reserved_microcredits >= 0),
  charged_microcredits    bigint NOT NULL DEFAULT 0 CHECK (charged_microcredits >= 0),
  progress                real,
  progress_message        text,
  webhook                 jsonb,
  attempts                integer NOT NULL DEFAULT 0,
  -- The worker holding the run while RUNNING, until lease_expires_at; a lapsed lease means the worker died.
  lease_owner             text,
  lease_expires_at        timestamptz,
  cancel_after            timestamptz,
  timeout_seconds         integer NOT NULL DEFAULT 600,
  created_at              timestamptz NOT NULL DEFAULT now(),
  started_at              timestamptz,
  finished_at             timestamptz
);
CREATE INDEX runs_account_created ON runs (account_id, created_at DESC, id DESC);
CREATE INDEX runs_active ON runs (status, lease_expires_at) WHERE status IN ('QUEUED', 'RUNNING');
CREATE INDEX runs_cancel_after ON runs (cancel_after) WHERE cancel_after IS NOT NULL AND status IN ('QUEUED', 'RUNNING');

-- Idempotency-Key memory: the same key and body within 24 h return the first run.
CREATE TABLE idempotency_keys (
  account_id    text NOT NULL REFERENCES accounts(id),
  key           text NOT NULL,
  scope         text NOT NULL,
  request_hash  text NOT NULL,
  run_id        text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- The events outbox: every state change writes its event here in the same transaction.
CREATE TABLE events (
  id          bigserial PRIMARY KEY,
  event_id    text NOT NULL UNIQUE,
  account_id  text NOT NULL REFERENCES accounts(id),
  run_id      text NOT NULL,
  type        text NOT NULL,
  payload     jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_run ON events (run_id, id);
