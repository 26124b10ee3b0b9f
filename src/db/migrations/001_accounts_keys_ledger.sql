-- Accounts own balances, runs, workflows and files: one per user (personal) and one per organization.
CREATE TABLE accounts (
  id          text PRIMARY KEY,
  kind        text NOT NULL CHECK (kind IN ('user', 'org')),
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE organizations (
  id          text PRIMARY KEY,
  name        text NOT NULL UNIQUE,
  account_id  text NOT NULL UNIQUE REFERENCES accounts(id),
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id             text PRIMARY KEY,
  email          text NOT NULL UNIQUE CHECK (email = lower(email)),
  password_hash  text NOT NULL,
  account_id     text NOT NULL UNIQUE REFERENCES accounts(id),
  -- The organization the user acts in; null means the personal account (spec 5.6).
  active_org_id  text REFERENCES organizations(id),
  created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE org_members (
  org_id      text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id     text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role        text NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, user_id)
);

-- Only the SHA-256 of a key is stored, with its visible prefix; the full key exists once, in the creator's hands.
CREATE TABLE api_keys (
  id               text PRIMARY KEY,
  user_id          text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  label            text NOT NULL CHECK (length(label) BETWEEN 1 AND 100),
  prefix           text NOT NULL,
  key_hash         bytea NOT NULL UNIQUE,
  rate_per_minute  integer NOT NULL DEFAULT 60 CHECK (rate_per_minute BETWEEN 1 AND 10000),
  rate_per_day     integer NOT NULL DEFAULT 1000 CHECK (rate_per_day BETWEEN 1 AND 100000),
  expires_at       timestamptz,
  revoked_at       timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now()
);
-- Labels are unique among a user's keys that still count (revoked keys free their label).
CREATE UNIQUE INDEX api_keys_label_unique ON api_keys (user_id, label) WHERE revoked_at IS NULL;

-- Fixed-window counters, one row per key, moved by a single guarded UPDATE so every API process shares them.
CREATE TABLE key_usage (
  key_id        text PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
  minute_start  timestamptz NOT NULL DEFAULT 'epoch',
  minute_count  integer NOT NULL DEFAULT 0,
  day_start     timestamptz NOT NULL DEFAULT 'epoch',
  day_count     integer NOT NULL DEFAULT 0,
  last_used_at  timestamptz
);

-- The projection that reservations lock and check; always equal to the sums of ledger_entries.
CREATE TABLE account_balances (
  account_id  text PRIMARY KEY REFERENCES accounts(id),
  posted      bigint NOT NULL DEFAULT 0,
  reserved    bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  CHECK (posted - reserved >= 0)
);

-- Every balance change is one row. posted_delta moves the balance, reserved_delta moves the hold:
--   grant/subscription_grant: +posted   reserve: +reserved   capture: -posted -reserved   release: -reserved
CREATE TABLE ledger_entries (
  id              bigserial PRIMARY KEY,
  account_id      text NOT NULL REFERENCES accounts(id),
  kind            text NOT NULL CHECK (kind IN ('grant', 'subscription_grant', 'reserve', 'capture', 'release', 'adjustment')),
  posted_delta    bigint NOT NULL DEFAULT 0,
  reserved_delta  bigint NOT NULL DEFAULT 0,
  run_id          text,
  note            text,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_account ON ledger_entries (account_id, id DESC);
CREATE INDEX ledger_entries_run ON ledger_entries (run_id) WHERE run_id IS NOT NULL;
