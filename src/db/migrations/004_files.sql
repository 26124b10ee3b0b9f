-- Server-wide secrets shared by every process (e.g. the key that signs file URLs).
CREATE TABLE server_secrets (
  name        text PRIMARY KEY,
  value       bytea NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Artifact metadata; the bytes live in the blob store under their SHA-256 (identical outputs share one blob).
CREATE TABLE files (
  id                text PRIMARY KEY,
  account_id        text NOT NULL REFERENCES accounts(id),
  sha256            text NOT NULL,
  content_type      text NOT NULL,
  bytes             bigint NOT NULL,
  filename          text,
  width             integer,
  height            integer,
  duration_seconds  double precision,
  run_id            text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  expires_at        timestamptz
);
CREATE INDEX files_account ON files (account_id, created_at DESC);
CREATE INDEX files_sha ON files (sha256);
CREATE INDEX files_expiry ON files (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX files_run ON files (run_id) WHERE run_id IS NOT NULL;
