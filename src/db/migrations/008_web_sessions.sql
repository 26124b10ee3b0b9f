-- Web app sign-in. The cookie carries a random token; only its SHA-256 is stored, so a leaked table
-- cannot be replayed as cookies. Each session has its own CSRF token, sent back in every form.
CREATE TABLE web_sessions (
  id            text PRIMARY KEY,
  token_hash    bytea NOT NULL UNIQUE,
  user_id       text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf_token    text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL
);
CREATE INDEX web_sessions_user ON web_sessions (user_id);
CREATE INDEX web_sessions_expires ON web_sessions (expires_at);

-- Sign-in attempts per (email, client address) in a fixed window, counted here rather than in memory so
-- the limit holds however many API processes share the database.
CREATE TABLE web_login_attempts (
  email         text NOT NULL,
  ip            text NOT NULL,
  window_start  timestamptz NOT NULL DEFAULT now(),
  attempts      integer NOT NULL DEFAULT 0,
  PRIMARY KEY (email, ip)
);
CREATE INDEX web_login_attempts_window ON web_login_attempts (window_start);
