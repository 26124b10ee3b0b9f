-- A subscription grants monthly credits to its account (user or organization) at each period start.
-- Periods are whole months from `anchor`; the current one is stored for display and for the grant guard.
CREATE TABLE subscriptions (
  account_id            text PRIMARY KEY REFERENCES accounts(id),
  plan                  text NOT NULL CHECK (length(plan) BETWEEN 1 AND 100),
  monthly_microcredits  bigint NOT NULL CHECK (monthly_microcredits >= 0),
  status                text NOT NULL CHECK (status IN ('active', 'canceled')),
  anchor                timestamptz NOT NULL,
  current_period_start  timestamptz NOT NULL,
  current_period_end    timestamptz NOT NULL,
  -- The period start whose grant has been written; the grant and this mark move in one transaction,
  -- so each period is granted exactly once however many schedulers run.
  granted_period_start  timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscriptions_active ON subscriptions (status) WHERE status = 'active';
