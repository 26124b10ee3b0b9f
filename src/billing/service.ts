import type { Db } from '../db/pool.js';
import { AppError } from '../errors.js';
import { balanceOf, grant, type Balance } from './ledger.js';
import * as q from './queries.js';

/** Credit operations that stand alone (top-ups, balance reads); run-related moves go through the run services. */
export class CreditService {
  constructor(private readonly db: Db) {}

  balance(accountId: string): Promise<Balance> {
    return balanceOf(this.db, accountId);
  }

  async hasActiveSubscription(accountId: string): Promise<boolean> {
    return (await this.db.query(q.HAS_ACTIVE_SUBSCRIPTION, [accountId])).rows[0].active;
  }

  /** The balance and whether a subscription is active, in one round trip (GET /v1/credits/balance). */
  async balanceAndSubscription(accountId: string): Promise<Balance & { hasActiveSubscription: boolean }> {
    const row = (await this.db.queryPrepared('atelier_balance_and_subscription', q.BALANCE_AND_SUBSCRIPTION, [accountId])).rows[0];
    if (!row) throw new AppError('NOT_FOUND', 'account not found');
    const posted: bigint = row.posted;
    const reserved: bigint = row.reserved;
    return { posted, reserved, available: posted - reserved, hasActiveSubscription: row.active };
  }

  grant(accountId: string, microcredits: bigint, note?: string): Promise<Balance> {
    return this.db.tx((c) => grant(c, accountId, microcredits, { note }));
  }
}
