-- Issue 17: the per-request hot path.
--
-- Rate-limit windows move to an UNLOGGED table. They are ephemeral (a restart of PostgreSQL after a crash
-- empties them, as Redis would), so counting a request writes no WAL and its commit does not wait for a
-- disk flush. key_usage keeps only the durable, coarse last_used_at.
CREATE UNLOGGED TABLE key_windows (
  key_id        text PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
  minute_start  timestamptz NOT NULL DEFAULT 'epoch',
  minute_count  integer NOT NULL DEFAULT 0,
  day_start     timestamptz NOT NULL DEFAULT 'epoch',
  day_count     integer NOT NULL DEFAULT 0,
  -- Exact time of the last admitted request (key_usage.last_used_at is refreshed at most once a minute).
  last_used_at  timestamptz
);
INSERT INTO key_windows (key_id, minute_start, minute_count, day_start, day_count, last_used_at)
  SELECT key_id, minute_start, minute_count, day_start, day_count, last_used_at FROM key_usage;
ALTER TABLE key_usage DROP COLUMN minute_start, DROP COLUMN minute_count, DROP COLUMN day_start, DROP COLUMN day_count;

-- API processes cache key records; these triggers tell every process (LISTEN atelier_keys) when a key or
-- the user behind it changes, whoever changed it (API, web app, CLI, plain SQL). The NOTIFY goes out when
-- the change commits.
CREATE FUNCTION atelier_notify_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('atelier_keys', 'key:' || OLD.id);
  RETURN NULL;
END $$;
CREATE TRIGGER api_keys_notify_changed AFTER UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION atelier_notify_key_changed();

CREATE FUNCTION atelier_notify_user_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('atelier_keys', 'user:' || OLD.id);
  RETURN NULL;
END $$;
CREATE TRIGGER users_notify_changed AFTER UPDATE OF email, account_id, active_org_id OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION atelier_notify_user_changed();
