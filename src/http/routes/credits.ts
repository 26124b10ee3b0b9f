import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { balanceView } from '../../billing/balanceView.js';
import { principalOf } from '../plugins/auth.js';
import { type TypedApp, withErrors } from '../schemas/common.js';

const BalanceResponse = Type.Object({
  availableBalance: Type.Integer({ maximum: Number.MAX_SAFE_INTEGER, description: 'Microcredits available to spend (ledger balance minus reservations). Exact: no balance may exceed 9007199254740991 (Number.MAX_SAFE_INTEGER); a grant that would pass it is refused, so every microcredit figure in this API is an exact JSON integer.' }),
  formatted: Type.String({ description: 'availableBalance in millions with two decimals, e.g. 26.17M' }),
  hasActiveSubscription: Type.Boolean(),
  isOrganization: Type.Boolean(),
  reservedMicrocredits: Type.Integer({ maximum: Number.MAX_SAFE_INTEGER, description: 'Held by runs that have not finished yet' }),
});

export async function creditRoutes(app: TypedApp, { services }: { services: Services }): Promise<void> {
  app.get('/v1/credits/balance', {
    schema: { tags: ['credits'], summary: 'Get credit balance', response: withErrors({ 200: BalanceResponse }) },
  }, async (req) => balanceView(services.credits, principalOf(req)));
}
