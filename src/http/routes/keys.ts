import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { AppError } from '../../errors.js';
import { budgetsOf, parseLimits, setLimits } from '../../ledger/budgets.js';
import { principalOf } from '../plugins/auth.js';
import { type TypedApp, withErrors } from '../schemas/common.js';
import { ApiKeySchema, BudgetLimitsBody, BudgetSchema, UpdateApiKeyBody } from '../../contract/keys.js';

const KeyIdParams = Type.Object({ keyId: Type.String({ maxLength: 100 }) });

/**
 * The calling user's API keys with their scopes and spend limits (issue 29), and the account's own limits.
 * Changes need a full key (keys/scopes.ts roleRefusal refuses run-only and read-only keys before these run).
 */
export async function keyRoutes(app: TypedApp, { services }: { services: Services }): Promise<void> {
  const tags = ['keys'];
  const userOf = (req: Parameters<typeof principalOf>[0]) => services.accounts.requireByEmail(principalOf(req).email);
  const own = async (req: Parameters<typeof principalOf>[0], keyId: string) => {
    const key = (await services.keys.list(await userOf(req))).find((k) => k.id === keyId);
    if (!key) throw new AppError('NOT_FOUND', 'no such key');
    return key;
  };

  app.get('/v1/keys', {
    schema: { tags, summary: "List the calling user's API keys with their scopes and spend limits", response: withErrors({ 200: Type.Object({ keys: Type.Array(Type.Ref(ApiKeySchema)) }) }, [403]) },
  }, async (req) => ({ keys: await services.keys.list(await userOf(req)) }));

  app.get('/v1/keys/:keyId', {
    schema: { tags, summary: 'Get an API key with its scope, spend limits and current spend', params: KeyIdParams, response: withErrors({ 200: Type.Ref(ApiKeySchema) }, [403, 404]) },
  }, async (req) => own(req, req.params.keyId));

  app.patch('/v1/keys/:keyId', {
    schema: {
      tags, summary: "Change a key's label, rate limits, role, model allow-list or spend limits",
      description: 'Omitted fields stay. nodeTypes, categories, providers: null allows any model. budgets: microcredits per UTC day, UTC month or in total; null removes a limit.',
      params: KeyIdParams, body: UpdateApiKeyBody, response: withErrors({ 200: Type.Ref(ApiKeySchema) }, [403, 404, 409]),
    },
  }, async (req) => {
    const b = req.body;
    return services.keys.update(await userOf(req), req.params.keyId, {
      label: b.label, perMinute: b.rateLimitPerMinute, perDay: b.rateLimitPerDay,
      role: b.role, nodeTypes: b.nodeTypes, categories: b.categories, providers: b.providers, budgets: b.budgets,
    });
  });

  app.get('/v1/credits/budgets', {
    schema: { tags: ['credits'], summary: "The account's spend limits and the calling key's, with the current periods' spend", response: withErrors({ 200: Type.Object({ budgets: Type.Array(Type.Ref(BudgetSchema)) }) }, [403]) },
  }, async (req) => {
    const p = principalOf(req);
    return { budgets: await budgetsOf(services.db, p.accountId, [p.keyId]) };
  });

  app.patch('/v1/credits/budgets', {
    schema: {
      tags: ['credits'], summary: "Set or remove the account's own spend limits (over every key and the web app)",
      body: BudgetLimitsBody, response: withErrors({ 200: Type.Object({ budgets: Type.Array(Type.Ref(BudgetSchema)) }) }, [403]),
    },
  }, async (req) => {
    const p = principalOf(req);
    await setLimits(services.db, p.accountId, null, parseLimits(req.body, 'body'));
    return { budgets: await budgetsOf(services.db, p.accountId, [p.keyId]) };
  });
}
