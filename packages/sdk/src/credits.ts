import type { Transport } from './transport.js';
import type { Page, PageQuery } from './types-common.js';
import type { Balance, LedgerEntry } from './types-credits.js';

export class CreditsApi {
  constructor(private readonly t: Transport) {}

  balance(): Promise<Balance> {
    return this.t.request('GET', '/v1/credits/balance');
  }

  /** Newest first: every grant, reservation, capture and release. */
  ledger(q: PageQuery = {}): Promise<Page<LedgerEntry>> {
    return this.t.request('GET', '/v1/credits/ledger', { query: { ...q } });
  }
}
