-- The signing secret of each account's webhook endpoint. After a rotation the previous secret also
-- signs until previous_expires_at, so receivers can switch without dropping deliveries.
CREATE TABLE webhook_secrets (
  account_id           text PRIMARY KEY REFERENCES accounts(id),
  secret               text NOT NULL,
  previous_secret      text,
  previous_expires_at  timestamptz,
  rotated_at           timestamptz NOT NULL DEFAULT now()
);

-- One row per event to deliver to a run's webhook; the deliverer claims due rows with a short lease.
CREATE TABLE webhook_deliveries (
  id               bigserial PRIMARY KEY,
  event_id         text NOT NULL REFERENCES events(event_id),
  account_id       text NOT NULL REFERENCES accounts(id),
  run_id           text NOT NULL,
  url              text NOT NULL,
  headers          jsonb,
  status           text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz,
  claimed_by       text,
  claimed_until    timestamptz,
  last_status_code integer,
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  delivered_at     timestamptz
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_run ON webhook_deliveries (run_id, id);
CREATE INDEX webhook_deliveries_account ON webhook_deliveries (account_id, id DESC);

-- Every attempt, for the delivery log.
CREATE TABLE webhook_attempts (
  id           bigserial PRIMARY KEY,
  delivery_id  bigint NOT NULL REFERENCES webhook_deliveries(id),
  attempt      integer NOT NULL,
  status_code  integer,
  latency_ms   integer NOT NULL,
  error        text,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id);
