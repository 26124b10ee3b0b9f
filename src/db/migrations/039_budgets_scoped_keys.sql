-- Spend limits (issue 29): per account or per key, per UTC day, per UTC month or in total. One row per
-- limit carries the limit and the spend of its current period, so the check on a run's hold is one locked
-- row per limit (src/ledger/queries/budgets.ts), never a SUM over the ledger. A row whose period_start is
-- older than the current period's start counts as zero spent: the first hold of a new period resets it.
CREATE TABLE budgets (
  id                  bigserial PRIMARY KEY,
  account_id          text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  -- NULL: the account's own limit, over every key and the web app.
  key_id              text REFERENCES api_keys(id) ON DELETE CASCADE,
  period              text NOT NULL CHECK (period IN ('day', 'month', 'total')),
  limit_microcredits  bigint NOT NULL CHECK (limit_microcredits >= 0),
  period_start        timestamptz NOT NULL DEFAULT 'epoch',
  spent_microcredits  bigint NOT NULL DEFAULT 0 CHECK (spent_microcredits >= 0),
  -- The highest threshold (50, 80, 100 %) already announced in this period: each is sent once.
  notified_percent    integer NOT NULL DEFAULT 0,
  -- When the limit was last lowered: a limit lowered below the period's spend is not an overspend (doctor).
  lowered_at          timestamptz NOT NULL DEFAULT 'epoch'
);
-- One limit per key and period, and one per account and period (key and account ids never coincide: kinds differ).
CREATE UNIQUE INDEX budgets_scope ON budgets (COALESCE(key_id, account_id), period);
-- A key's limits apply whichever account the key acts for (a user may switch organizations).
CREATE INDEX budgets_key ON budgets (key_id) WHERE key_id IS NOT NULL;

-- What each run holds against each limit, so a release gives back to the period it was counted in (and
-- a capture keeps it). One row per run and limit while it holds anything; removed once settled in full.
CREATE TABLE budget_holds (
  run_id        text NOT NULL,
  budget_id     bigint NOT NULL REFERENCES budgets(id) ON DELETE CASCADE,
  period_start  timestamptz NOT NULL,
  amount        bigint NOT NULL CHECK (amount >= 0),
  PRIMARY KEY (run_id, budget_id)
);

-- Scoped keys: a role and an allow-list of models (NULL: any).
ALTER TABLE api_keys
  ADD COLUMN role text NOT NULL DEFAULT 'full' CHECK (role IN ('full', 'run-only', 'read-only')),
  ADD COLUMN allow_node_types text[],
  ADD COLUMN allow_categories text[],
  ADD COLUMN allow_providers text[];

-- The key a run was created with (NULL: the web app or MCP without a key): its node holds count against
-- that key's limits too.
ALTER TABLE runs ADD COLUMN key_id text;
