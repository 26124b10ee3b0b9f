import type { BenchPostgres } from '../lib/database.js';
import { hammer } from '../lib/load.js';
import { row, type Row } from '../lib/report.js';
import { startService, type BenchService } from '../lib/service.js';
import { setLimits } from '../../src/ledger/budgets.js';

let userCounter = 0;

type Limits = 'none' | 'one' | 'six';

/**
 * Keys of fresh users with plenty of credits and spend limits never reached: none; one (the key's daily
 * limit, the common case); or six (key and account, day, month and total: the most a create checks).
 */
async function keys(svc: BenchService, n: number, budgets: Limits): Promise<string[]> {
  const limits = budgets === 'six' ? { day: 10 ** 13, month: 10 ** 13, total: 10 ** 13 } : { day: 10 ** 13 };
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const user = await svc.services.accounts.createUser({ email: `budget${++userCounter}-${budgets}-${process.pid}@example.com`, password: 'bench password 1' });
    await svc.services.credits.grant(user.actingAccountId, 10n ** 14n);
    const k = await svc.services.keys.create(user, { label: 'bench', perMinute: 10_000, perDay: 100_000, ...(budgets !== 'none' ? { budgets: limits } : {}) });
    // The account's own limits too: a create then checks six limits in its one statement.
    if (budgets === 'six') await setLimits(svc.services.db, user.actingAccountId, null, limits);
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
    const sets = { none: await keys(svc, 10, 'none'), one: await keys(svc, 10, 'one'), six: await keys(svc, 10, 'six') };
    const body = JSON.stringify({ input: { text: 'hello world' } });
    const url = `${svc.url}/v1/nodes/word_count/run`;
    for (const k of Object.values(sets)) await hammer({ url, method: 'POST', body, connections: opts.connections, seconds: 2, keys: k });
    const rps = { none: 0, one: 0, six: 0 };
    let bad = 0;
    // Rounds interleave the three, so a change in the machine's load falls on all of them alike, in an order
    // reversed every other round: the round after another inherits its aftermath (autovacuum of the tables it
    // filled, a checkpoint), and a fixed order put it on the same set every time.
    for (let r = 0; r < opts.rounds; r++) {
      const order = r % 2 ? (['six', 'one', 'none'] as const) : (['none', 'one', 'six'] as const);
      const line: string[] = [];
      for (const which of order) {
        const got = await hammer({ url, method: 'POST', body, connections: opts.connections, seconds: opts.seconds, keys: sets[which] });
        rps[which] += got.rps / opts.rounds;
        bad += got.non2xx + got.errors;
        line.push(`${which} ${Math.round(got.rps)}/s`);
      }
      console.log(`   round ${r + 1}: ${line.join(', ')}`);
    }
    const note = bad ? `${bad} non-2xx or errors` : undefined;
    return [
      row({
        scenario: 'budget. spend-limit check', metric: `creates/s with the key's daily limit set (${opts.connections} connections, API process only)`, figure: rps.one, unit: 'runs/s',
        baseline: rps.none, baselineLabel: 'creates/s with no limits, same run', goal: 'ratio ≥ 0.9', met: rps.one / rps.none >= 0.9, note,
      }),
      row({
        scenario: 'budget. spend-limit check', metric: `creates/s with six limits set (key and account × day, month, total)`, figure: rps.six, unit: 'runs/s',
        baseline: rps.none, baselineLabel: 'creates/s with no limits, same run', goal: 'ratio ≥ 0.9', met: rps.six / rps.none >= 0.9, note,
      }),
    ];
  } finally {
    await svc.stop();
  }
}
