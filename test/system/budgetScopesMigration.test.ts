import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Db } from '../../src/db/pool.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { budgetsOf } from '../../src/ledger/budgets.js';
import { freshDatabase } from '../helpers/db.js';

// Migration 042 turns 039's one budgets row per limit into one row per scope (account or key) and each
// run's shares into one row per scope: the limits, each period's spend, announced thresholds and the
// live holds come across, so nothing of a live period's spend is forgotten or given back twice.
test('042 converts the limits, the spend and the live holds of one row per limit into one row per scope', async () => {
  const database = await freshDatabase();
  const db = new Db(database.url, { max: 2 });
  try {
    await db.query(`CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    for (const m of loadMigrations().filter((x) => x.version < 42)) {
      await db.query(m.sql);
      await db.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
    await db.query(`INSERT INTO accounts (id, kind, name) VALUES ('acct_a', 'user', 'a')`);
    await db.query(`INSERT INTO users (id, email, password_hash, account_id) VALUES ('usr_a', 'a@example.com', 'x', 'acct_a')`);
    await db.query(`INSERT INTO api_keys (id, user_id, label, prefix, key_hash) VALUES ('key_a', 'usr_a', 'k', 'p', '\\x00')`);
    const day = `date_trunc('day', now(), 'UTC')`;
    const month = `date_trunc('month', now(), 'UTC')`;
    // The key: a daily limit (700 of 1,000 spent today, 50 % announced) and a total one (900 spent); the account: a monthly limit.
    const ids = (await db.query(`INSERT INTO budgets (account_id, key_id, period, limit_microcredits, period_start, spent_microcredits, notified_percent) VALUES
      ('acct_a', 'key_a', 'day', 1000, ${day}, 700, 50), ('acct_a', 'key_a', 'total', 5000, 'epoch', 900, 0),
      ('acct_a', NULL, 'month', 20000, ${month}, 900, 0) RETURNING id, period, key_id`)).rows;
    const id = (period: string) => ids.find((r) => r.period === period).id;
    // A live run holding 300 against all three; another holding 200 against the key's total only (held before the daily limit was set).
    await db.query(`INSERT INTO budget_holds (run_id, budget_id, period_start, amount) VALUES
      ('run_1', $1, ${day}, 300), ('run_1', $2, 'epoch', 300), ('run_1', $3, ${month}, 300), ('run_2', $2, 'epoch', 200)`, [id('day'), id('total'), id('month')]);

    assert.deepEqual(await migrate(db), ['042_budget_scopes.sql']);

    const shown = await budgetsOf(db, 'acct_a', ['key_a']);
    assert.deepEqual(shown.map((b) => [b.scope, b.period, b.limitMicrocredits, b.spentMicrocredits]),
      [['account', 'month', 20000, 900], ['key', 'day', 1000, 700], ['key', 'total', 5000, 900]]);
    const scopes = (await db.query(`SELECT key_id, day_limit, month_limit, total_limit, day_notified FROM budgets ORDER BY key_id NULLS FIRST`)).rows;
    assert.deepEqual(scopes.map((r) => [r.key_id, r.day_limit, r.month_limit, r.total_limit, r.day_notified]),
      [[null, null, 20000n, null, 0], ['key_a', 1000n, null, 5000n, 50]]);
    const holds = (await db.query(`SELECT h.run_id, b.key_id, h.day_amount, h.month_amount, h.total_amount FROM budget_holds h JOIN budgets b ON b.id = h.budget_id
      ORDER BY h.run_id, b.key_id NULLS FIRST`)).rows;
    assert.deepEqual(holds.map((r) => [r.run_id, r.key_id, r.day_amount, r.month_amount, r.total_amount]),
      [['run_1', null, 0n, 300n, 0n], ['run_1', 'key_a', 300n, 0n, 300n], ['run_2', 'key_a', 0n, 0n, 200n]]);
  } finally {
    await db.close();
    await database.drop();
  }
});
