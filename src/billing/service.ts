import type { Db } from '../db/pool.js';
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

  grant(accountId: string, microcredits: bigint, note?: string): Promise<Balance> {
    return this.db.tx((c) => grant(c, accountId, microcredits, { note }));
  }
}
