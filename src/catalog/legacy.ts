import crypto from 'node:crypto';
import type { Db } from '../db/pool.js';
import { AppError } from '../errors.js';
import { priceMicrocredits } from '../pricing/price.js';
import { decodeCursor, pageOf } from '../pagination.js';
import type { Catalog } from './catalog.js';
import type { ModelDef } from './types.js';
import { insertLegacyRun, legacyRunCounts, legacyRunsPage, markSeeded } from './queries.js';

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
      if (!(await markSeeded(c, accountId))) return;
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
          await insertLegacyRun(c, {
            id: `lrun_${crypto.createHash('sha256').update(`${accountId}:${model.nodeType}:${k}`).digest('base64url').slice(0, 20)}`,
            account_id: accountId, node_type: model.nodeType, status: failed ? 'FAILED' : 'COMPLETED', input,
            output: failed ? { error: 'provider error' } : { source: 'seed', note: 'artifacts of retired models are no longer stored' },
            credit_used: failed ? 0 : priceMicrocredits(mode.pricing, input), created_at: created, finished_at: new Date(created.getTime() + 30_000),
          });
        }
      }
    });
  }

  async list(accountId: string) {
    await this.ensureSeeded(accountId);
    const counts = await legacyRunCounts(this.db, accountId);
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
    const rows = await legacyRunsPage(this.db, accountId, nodeType, after, limit + 1);
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
