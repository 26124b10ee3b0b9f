import DataLoader from 'dataloader';
import type { Db } from '../db/pool.js';
import { AppError } from '../errors.js';
import { balanceOf, grant, type Balance } from '../ledger/ledger.js';
import * as q from './queries.js';
import { preparedRowsOf } from '../db/typed.js';

/** Credit operations that stand alone (top-ups, balance reads); run-related moves go through the run services. */
export class CreditService {
  /**
   * Balance reads that arrive together share one statement (dataloader, with its cache off: each read still
   * starts after it was asked for, so it sees every commit that preceded it). At most two such statements
   * are in flight; reads arriving meanwhile wait and go together in the next, so under load batches grow
   * instead of statements queueing for pool connections. On the hottest read of the API this turns a
   * round trip per request into one per batch.
   */
  private readonly balances: DataLoader<string, q.BalanceRow | undefined>;
  private balanceReadsInFlight = 0;
  private readonly balanceBatchesWaiting: Array<() => void> = [];

  constructor(private readonly db: Db) {
    this.balances = new DataLoader(async (ids) => {
      this.balanceReadsInFlight++;
      try {
        const rows = await preparedRowsOf<q.BalanceRow>(this.db, 'atelier_balances_and_subscriptions', q.BALANCES_AND_SUBSCRIPTIONS, [ids]);
        const byId = new Map(rows.map((r) => [r.account_id, r]));
        return ids.map((id) => byId.get(id));
      } finally {
        this.balanceReadsInFlight--;
        const next = this.balanceBatchesWaiting.shift();
        if (next) setImmediate(next);
      }
    }, {
      cache: false,
      maxBatchSize: 1000,
      // After this turn's I/O callbacks, so every read asked for in this turn joins; later while two are in flight.
      batchScheduleFn: (dispatch) => {
        if (this.balanceReadsInFlight < 2) setImmediate(dispatch);
        else this.balanceBatchesWaiting.push(dispatch);
      },
    });
  }

  balance(accountId: string): Promise<Balance> {
    return balanceOf(this.db, accountId);
  }

  /** The balance and whether a subscription is active (GET /v1/credits/balance), read with the other reads of this turn. */
  async balanceAndSubscription(accountId: string): Promise<Balance & { hasActiveSubscription: boolean }> {
    const row = await this.balances.load(accountId);
    if (!row) throw new AppError('NOT_FOUND', 'account not found');
    const posted: bigint = row.posted;
    const reserved: bigint = row.reserved;
    return { posted, reserved, available: posted - reserved, hasActiveSubscription: row.active };
  }

  grant(accountId: string, microcredits: bigint, note?: string): Promise<Balance> {
    return this.db.tx((c) => grant(c, accountId, microcredits, { note }));
  }
}
