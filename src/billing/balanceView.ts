import type { CreditService } from './service.js';
import type { Principal } from '../keys/service.js';
import { formatMillions } from './format.js';

/** The balance answer of GET /v1/credits/balance; shared so the MCP get_balance tool returns the same JSON. */
export async function balanceView(credits: Pick<CreditService, 'balanceAndSubscription'>, principal: Pick<Principal, 'accountId' | 'isOrganization'>) {
  const b = await credits.balanceAndSubscription(principal.accountId);
  return {
    availableBalance: Number(b.available),
    formatted: formatMillions(b.available),
    hasActiveSubscription: b.hasActiveSubscription,
    isOrganization: principal.isOrganization,
    reservedMicrocredits: Number(b.reserved),
  };
}
