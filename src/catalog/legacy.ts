import crypto from 'node:crypto';
import type { Db } from '../db/pool.js';
import { AppError } from '../errors.js';
import { priceMicrocredits } from '../pricing/price.js';
import { decodeCursor, pageOf } from '../pagination.js';
import type { Catalog } from './catalog.js';
import type { ModelDef } from './types.js';

const NODE_TYPE = /^[a-z][a-z0-9_]{1,63}$/;

/**
 * Retired models and their run history (spec 4.8, 9.3). Each account gets a small sample history of the
 * retired models, written once on first read and marked `source: "seed"`, so migration tooling has
 * something real to page through; the amounts are what the pricing function charges for those inputs.
 */
export class LegacyService {
  constructor(private readonly db: Db, private readonly catalog: Catalog) {}

  deprecatedModels(): ModelDef[] {
    return this.catalog.models.filter((m) => m.deprecated);
  }

  private async ensureSeeded(accountId: string): Promise<void> {
    const retired = this.deprecatedModels();
    if (retired.length === 0) return;
    await this.db.tx(async (c) => {
      const r = await c.query(`INSERT INTO legacy_seeded (account_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING account_id`, [accountId]);
      if (r.rowCount === 0) return;
      // Deterministic per account: the same account always gets the same sample history.
      const seed = crypto.createHash('sha256').update(accountId).digest();
      let i = 0;
      for (const model of retired) {
        const count = 2 + (seed[i % seed.length]! % 3);
        const mode = model.modes[0]!;
        const defaults = this.catalog.defaults(mode);
        const deprecatedAt = new Date(model.deprecated!.at).getTime();
        for (let k = 0; k < count; k++, i++) {
          const input = { ...defaults, ...(mode.fields.some((f) => f.name === 'prompt') ? { prompt: `legacy sample request ${k + 1}` } : {}) };
          const failed = seed[(i + 7) % seed.length]! % 5 === 0;
          const created = new Date(deprecatedAt - (k + 1) * 86_400_000 * (1 + (seed[(i + 3) % seed.length]! % 20)));
          await c.query(
            `INSERT INTO legacy_runs (id, account_id, node_type, status, input, output, credit_used, created_at, finished_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
            [
              `lrun_${crypto.createHash('sha256').update(`${accountId}:${model.nodeType}:${k}`).digest('base64url').slice(0, 20)}`,
              accountId, model.nodeType, failed ? 'FAILED' : 'COMPLETED', input,
              failed ? { error: 'provider error' } : { source: 'seed', note: 'artifacts of retired models are no longer stored' },
              failed ? 0 : priceMicrocredits(mode.pricing, input), created, new Date(created.getTime() + 30_000),
            ],
          );
        }
      }
    });
  }

  async list(accountId: string) {
    await this.ensureSeeded(accountId);
    const counts = new Map<string, number>(
      (await this.db.query(`SELECT node_type, count(*)::int AS n FROM legacy_runs WHERE account_id = $1 GROUP BY node_type`, [accountId])).rows.map((r) => [r.node_type, r.n]),
    );
    return {
      items: this.deprecatedModels().map((m) => ({
        nodeType: m.nodeType,
        name: m.name,
        category: m.category,
        deprecatedAt: m.deprecated!.at,
        replacement: m.deprecated!.replacement,
        runCount: counts.get(m.nodeType) ?? 0,
      })),
    };
  }

  async runs(accountId: string, nodeType: string, cursor: string | undefined, limit: number) {
    if (!NODE_TYPE.test(nodeType)) throw new AppError('VALIDATION_ERROR', `"${nodeType}" is not a valid node type`, { details: [{ path: 'params.nodeType', message: 'must be snake_case letters, digits and _' }] });
    const model = this.catalog.model(nodeType);
    if (!model || !model.deprecated) throw new AppError('NOT_FOUND', `${nodeType} is not a deprecated model`);
    await this.ensureSeeded(accountId);
    const after = decodeCursor(cursor);
    const rows = (await this.db.query(
      `SELECT * FROM legacy_runs WHERE account_id = $1 AND node_type = $2
         AND ($3::timestamptz IS NULL OR (created_at, id) < ($3, $4))
       ORDER BY created_at DESC, id DESC LIMIT $5`,
      [accountId, nodeType, after[0], after[1], limit + 1],
    )).rows;
    const { page, nextCursor } = pageOf(rows, limit, (r) => r.created_at);
    return {
      nodeType,
      items: page.map((r) => ({
        id: r.id, status: r.status, input: r.input, output: r.output, creditUsed: Number(r.credit_used),
        createdAt: r.created_at.toISOString(), finishedAt: r.finished_at?.toISOString() ?? null,
      })),
      nextCursor,
    };
  }
}
