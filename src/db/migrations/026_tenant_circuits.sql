-- Issue 26, finding 2: one tenant's failing webhook path blocked every tenant on the same host, because the
-- delivery circuit, its probe and the fair share were per scheme://host:port. A destination is now an
-- account's origin ("<account id> <scheme://host:port>", events/fairDelivery.ts destinationOf): each account's
-- deliveries to a host have their own circuit, their own probe and their own share of the deliverer.
ALTER TABLE webhook_deliveries DROP COLUMN destination;
ALTER TABLE webhook_deliveries ADD COLUMN destination text
  GENERATED ALWAYS AS (account_id || ' ' || COALESCE(substring(url from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]+'), url)) STORED;
CREATE INDEX webhook_deliveries_destination_due ON webhook_deliveries (destination, next_attempt_at, id) WHERE status = 'pending';
-- Circuits keyed by the old, shared destinations would hold no one's deliveries any more.
DELETE FROM webhook_endpoints;
