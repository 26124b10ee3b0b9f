import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { AppError } from '../../errors.js';
import { ledgerPage } from '../../ledger/ledger.js';
import { principalOf } from '../plugins/auth.js';
import { type TypedApp, withErrors } from '../schemas/common.js';

/** The account's ledger, newest first: every grant, reservation, capture and release. */
export async function ledgerRoutes(app: TypedApp, { services }: { services: Services }): Promise<void> {
  app.get('/v1/credits/ledger', {
    schema: {
      tags: ['credits'], summary: 'List ledger entries, newest first',
      querystring: Type.Object({ cursor: Type.Optional(Type.String({ maxLength: 30 })), limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }) }),
      response: withErrors({ 200: Type.Object({
        items: Type.Array(Type.Object({
          id: Type.String(), kind: Type.String(),
          microcredits: Type.Integer({ description: 'Change of the balance (grants +, captures −)' }),
          reservedMicrocredits: Type.Integer({ description: 'Change of the amount on hold (reserve +, capture/release −)' }),
          runId: Type.Optional(Type.String({ description: 'The run the entry belongs to; absent for grants' })), note: Type.Optional(Type.String()), createdAt: Type.String(),
        })),
        nextCursor: Type.Union([Type.String(), Type.Null()]),
      }) }),
    },
  }, async (req) => {
    const { cursor, limit } = req.query;
    if (cursor !== undefined && !/^\d{1,18}$/.test(cursor)) throw new AppError('VALIDATION_ERROR', 'cursor is not one this API returned', { details: [{ path: 'query.cursor', message: 'is invalid' }] });
    const rows = await ledgerPage(services.db, principalOf(req).accountId, cursor === undefined ? null : BigInt(cursor), limit + 1);
    const page = rows.slice(0, limit);
    return {
      items: page.map((r) => ({
        id: r.id, kind: r.kind, microcredits: Number(r.postedDelta), reservedMicrocredits: Number(r.reservedDelta),
        // Absent properties are absent (docs/api.md): a grant has no run, most entries no note.
        ...(r.runId !== null ? { runId: r.runId } : {}), ...(r.note !== null ? { note: r.note } : {}), createdAt: r.createdAt.toISOString(),
      })),
      nextCursor: rows.length > limit ? page.at(-1)!.id : null,
    };
  });
}
