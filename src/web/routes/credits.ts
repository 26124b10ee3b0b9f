import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { AppError } from '../../errors.js';
import { balanceView } from '../../billing/balanceView.js';
import { ledgerPage } from '../../ledger/ledger.js';
import { actingPrincipal, pageContext, sendHtml } from '../context.js';
import { creditsPage } from '../views/credits.js';

const PAGE = 50;

/** Balance (formatted as the API does) and the ledger, newest first. */
export async function creditRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  app.get('/credits', async (req, reply) => {
    const ctx = await pageContext(services, req);
    const before = (req.query as Record<string, unknown>).before;
    if (before !== undefined && (typeof before !== 'string' || !/^\d{1,18}$/.test(before))) throw new AppError('VALIDATION_ERROR', 'That page of the ledger does not exist.');
    const principal = actingPrincipal(ctx.user);
    const rows = await ledgerPage(services.db, principal.accountId, before === undefined ? null : BigInt(before), PAGE + 1);
    const entries = rows.slice(0, PAGE);
    return sendHtml(reply, creditsPage(ctx, {
      balance: await balanceView(services.credits, principal),
      entries,
      nextCursor: rows.length > PAGE ? entries.at(-1)!.id : null,
      firstPage: before === undefined,
    }));
  });
}
