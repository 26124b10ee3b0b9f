-- Spend limits, one row per scope (issue 29, issue 31 item 3): the account's own limits, or one key's,
-- with the day, month and total limits (NULL: none) and each period's spend as columns of one row. A run's
-- create locks and updates at most two rows (the account's and the key's) and records at most two shares,
-- where migration 039's one row per limit made it up to six of each. Every period's spend is counted while
-- the row exists, whether or not that period has a limit, so a limit set later counts the period's spend
-- since then (a limit set over that spend counts as lowered: doctor). The row goes when its last limit does.
CREATE TABLE budget_scopes (
  id                 bigserial PRIMARY KEY,
  account_id         text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  -- NULL: the account's own limits, over every key and the web app.
  key_id             text REFERENCES api_keys(id) ON DELETE CASCADE,
  day_limit          bigint CHECK (day_limit >= 0),
  month_limit        bigint CHECK (month_limit >= 0),
  total_limit        bigint CHECK (total_limit >= 0),
  -- The period each spend belongs to: a start older than the current period's counts as zero spent.
  day_start          timestamptz NOT NULL DEFAULT 'epoch',
  day_spent          bigint NOT NULL DEFAULT 0 CHECK (day_spent >= 0),
  month_start        timestamptz NOT NULL DEFAULT 'epoch',
  month_spent        bigint NOT NULL DEFAULT 0 CHECK (month_spent >= 0),
  total_spent        bigint NOT NULL DEFAULT 0 CHECK (total_spent >= 0),
  -- The highest threshold (50, 80, 100 %) already announced in each period: each is sent once.
  day_notified       integer NOT NULL DEFAULT 0,
  month_notified     integer NOT NULL DEFAULT 0,
  total_notified     integer NOT NULL DEFAULT 0,
  -- When each limit was last set or lowered: a limit set below the period's spend is not an overspend (doctor).
  day_lowered_at     timestamptz NOT NULL DEFAULT 'epoch',
  month_lowered_at   timestamptz NOT NULL DEFAULT 'epoch',
  total_lowered_at   timestamptz NOT NULL DEFAULT 'epoch',
  CHECK (day_limit IS NOT NULL OR month_limit IS NOT NULL OR total_limit IS NOT NULL)
);

-- What each run holds against each scope, per period, so a release gives back to the period it was counted in.
CREATE TABLE budget_scope_holds (
  run_id        text NOT NULL,
  budget_id     bigint NOT NULL REFERENCES budget_scopes(id) ON DELETE CASCADE,
  day_start     timestamptz NOT NULL,
  day_amount    bigint NOT NULL CHECK (day_amount >= 0),
  month_start   timestamptz NOT NULL,
  month_amount  bigint NOT NULL CHECK (month_amount >= 0),
  total_amount  bigint NOT NULL CHECK (total_amount >= 0),
  PRIMARY KEY (run_id, budget_id)
);

-- The limits of 039's rows, one scope row per account or key; each period's spend, period and announced
-- threshold as they were (a period without a limit starts counting now).
INSERT INTO budget_scopes (account_id, key_id, day_limit, month_limit, total_limit, day_start, day_spent, month_start, month_spent, total_spent,
                           day_notified, month_notified, total_notified, day_lowered_at, month_lowered_at, total_lowered_at)
SELECT min(account_id), min(key_id),
       min(limit_microcredits) FILTER (WHERE period = 'day'), min(limit_microcredits) FILTER (WHERE period = 'month'), min(limit_microcredits) FILTER (WHERE period = 'total'),
       COALESCE(min(period_start) FILTER (WHERE period = 'day'), 'epoch'), COALESCE(min(spent_microcredits) FILTER (WHERE period = 'day'), 0),
       COALESCE(min(period_start) FILTER (WHERE period = 'month'), 'epoch'), COALESCE(min(spent_microcredits) FILTER (WHERE period = 'month'), 0),
       COALESCE(min(spent_microcredits) FILTER (WHERE period = 'total'), 0),
       COALESCE(min(notified_percent) FILTER (WHERE period = 'day'), 0), COALESCE(min(notified_percent) FILTER (WHERE period = 'month'), 0),
       COALESCE(min(notified_percent) FILTER (WHERE period = 'total'), 0),
       COALESCE(min(lowered_at) FILTER (WHERE period = 'day'), 'epoch'), COALESCE(min(lowered_at) FILTER (WHERE period = 'month'), 'epoch'),
       COALESCE(min(lowered_at) FILTER (WHERE period = 'total'), 'epoch')
  FROM budgets GROUP BY COALESCE(key_id, account_id);

-- Each run's shares: a period whose limit did not exist held nothing in it (amount 0).
INSERT INTO budget_scope_holds (run_id, budget_id, day_start, day_amount, month_start, month_amount, total_amount)
SELECT h.run_id, s.id,
       COALESCE(min(h.period_start) FILTER (WHERE b.period = 'day'), 'epoch'), COALESCE(sum(h.amount) FILTER (WHERE b.period = 'day'), 0),
       COALESCE(min(h.period_start) FILTER (WHERE b.period = 'month'), 'epoch'), COALESCE(sum(h.amount) FILTER (WHERE b.period = 'month'), 0),
       COALESCE(sum(h.amount) FILTER (WHERE b.period = 'total'), 0)
  FROM budget_holds h JOIN budgets b ON b.id = h.budget_id
  JOIN budget_scopes s ON COALESCE(s.key_id, s.account_id) = COALESCE(b.key_id, b.account_id)
 WHERE h.amount > 0
 GROUP BY h.run_id, s.id;

DROP TABLE budget_holds;
DROP TABLE budgets;
ALTER TABLE budget_scopes RENAME TO budgets;
ALTER TABLE budget_scope_holds RENAME TO budget_holds;
ALTER SEQUENCE budget_scopes_id_seq RENAME TO budgets_id_seq;
-- One row per scope (key and account ids never coincide: kinds differ); the create's lookup is this index.
CREATE UNIQUE INDEX budgets_scope ON budgets (COALESCE(key_id, account_id));

-- The budget gate's locks (src/ledger/queries/budgets.ts budgetGateSql): the account's balance row, then
-- the scopes of the account and of the key, answered as they are once locked. A function because its
-- query gets a snapshot of its own: had the create's statement taken these locks itself, each lock that
-- waited for another create of the account would have met rows newer than the statement's snapshot and
-- made PostgreSQL re-check them against its whole plan (EvalPlanQual), the main cost of a budget check
-- under concurrent creates (issue 29). Here that re-check covers this one small query. ROWS 2 (the most it
-- answers) keeps the create's prepared statement on its generic plan: with the default estimate of 1,000
-- rows PostgreSQL planned the statement anew on every execution.
CREATE FUNCTION budget_scopes_locked(p_account text, p_key text) RETURNS SETOF budgets
LANGUAGE plpgsql VOLATILE ROWS 2 AS $$
BEGIN
  RETURN QUERY SELECT g.* FROM account_balances b JOIN budgets g ON COALESCE(g.key_id, g.account_id) IN (p_account, p_key)
    WHERE b.account_id = p_account
    FOR NO KEY UPDATE OF b FOR UPDATE OF g;
END $$;
