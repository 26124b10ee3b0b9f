import type { BenchPostgres } from '../lib/database.js';
import { hammer } from '../lib/load.js';
import { row, type Row } from '../lib/report.js';
import { startService, type BenchService } from '../lib/service.js';
import { setLimits } from '../../src/ledger/budgets.js';

let userCounter = 0;

/** Keys of fresh users with plenty of credits; with `budgets`, every spend limit set (key and account, day, month, total), none ever reached. */
async function keys(svc: BenchService, n: number, budgets: boolean): Promise<string[]> {
  const limits = { day: 10 ** 13, month: 10 ** 13, total: 10 ** 13 };
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const user = await svc.services.accounts.createUser({ email: `budget${++userCounter}-${budgets ? 'on' : 'off'}-${process.pid}@example.com`, password: 'bench password 1' });
    await svc.services.credits.grant(user.actingAccountId, 10n ** 14n);
    const k = await svc.services.keys.create(user, { label: 'bench', perMinute: 10_000, perDay: 100_000, ...(budgets ? { budgets: limits } : {}) });
    // The account's own limits too: a create then checks six limits in its one statement.
    if (budgets) await setLimits(svc.services.db, user.actingAccountId, null, limits);
    out.push(k.key);
  }
  return out;
}

/**
 * (budget) The cost of the spend-limit check on run creation (issue 29): creates/s of POST
 * /v1/nodes/word_count/run on an API-only process for keys whose accounts and keys have every limit set,
 * against the same for keys with none, in the same run, rounds interleaved. Goal: ratio ≥ 0.9.
 */
export async function budgetCheck(pgInfo: BenchPostgres, opts: { seconds: number; connections: number; rounds: number }): Promise<Row[]> {
  const svc = await startService(pgInfo, ['api']);
  try {
    const plain = await keys(svc, 10, false);
    const limited = await keys(svc, 10, true);
    const body = JSON.stringify({ input: { text: 'hello world' } });
    const url = `${svc.url}/v1/nodes/word_count/run`;
    await hammer({ url, method: 'POST', body, connections: opts.connections, seconds: 2, keys: plain });
    await hammer({ url, method: 'POST', body, connections: opts.connections, seconds: 2, keys: limited });
    let without = 0;
    let withBudgets = 0;
    let bad = 0;
    for (let r = 0; r < opts.rounds; r++) {
      const a = await hammer({ url, method: 'POST', body, connections: opts.connections, seconds: opts.seconds, keys: plain });
      const b = await hammer({ url, method: 'POST', body, connections: opts.connections, seconds: opts.seconds, keys: limited });
      without += a.rps / opts.rounds;
      withBudgets += b.rps / opts.rounds;
      bad += a.non2xx + a.errors + b.non2xx + b.errors;
    }
    return [row({
      scenario: 'budget. spend-limit check', metric: `creates/s with six spend limits set (${opts.connections} connections, API process only)`, figure: withBudgets, unit: 'runs/s',
      baseline: without, baselineLabel: 'creates/s with no limits, same run', goal: 'ratio ≥ 0.9', met: withBudgets / without >= 0.9,
      note: bad ? `${bad} non-2xx or errors` : undefined,
    })];
  } finally {
    await svc.stop();
  }
}
