import { Type } from '@sinclair/typebox';

/** The shapes of API keys, their scopes and spend limits (issue 29), shared by http/ and the services. */

const Microcredits = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
const Names = Type.Union([Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 200 }), Type.Null()]);

export const BudgetSchema = Type.Object({
  scope: Type.Union([Type.Literal('account'), Type.Literal('key')]),
  keyId: Type.Union([Type.String(), Type.Null()]),
  period: Type.Union([Type.Literal('day'), Type.Literal('month'), Type.Literal('total')], { description: 'Calendar UTC day or month, or no period' }),
  limitMicrocredits: Microcredits,
  spentMicrocredits: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Held or charged in the current period: holds count when reserved, releases give back, captures keep' }),
  periodStart: Type.String({ format: 'date-time' }),
  resetsAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
}, { $id: 'Budget' });

export const ApiKeySchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  prefix: Type.String(),
  state: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')]),
  rateLimitPerMinute: Type.Integer(),
  rateLimitPerDay: Type.Integer(),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  role: Type.Union([Type.Literal('full'), Type.Literal('run-only'), Type.Literal('read-only')], { description: 'run-only: no workflow edits, no webhook secret, no key or budget management; read-only: reads and estimates only' }),
  nodeTypes: Names,
  categories: Names,
  providers: Names,
  budgets: Type.Array(Type.Ref(BudgetSchema)),
  maxPriority: Type.Integer({ minimum: 0, maximum: 10, description: 'The highest run priority the key may ask for (a create above it: 403 PRIORITY_NOT_ALLOWED); 0, normal, unless the operator raised it (atelier keys set-priority)' }),
}, { $id: 'ApiKey' });

/** The shared schemas above, registered once on the app (app/app.ts) so the document names them. */
export const KEY_SCHEMAS = [BudgetSchema, ApiKeySchema];

/** Limits per period in microcredits; null removes one, an omitted period stays as it is. */
export const BudgetLimitsBody = Type.Object({
  day: Type.Optional(Type.Union([Microcredits, Type.Null()])),
  month: Type.Optional(Type.Union([Microcredits, Type.Null()])),
  total: Type.Optional(Type.Union([Microcredits, Type.Null()])),
}, { additionalProperties: false });

export const UpdateApiKeyBody = Type.Object({
  label: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  rateLimitPerMinute: Type.Optional(Type.Integer()),
  rateLimitPerDay: Type.Optional(Type.Integer()),
  role: Type.Optional(Type.Union([Type.Literal('full'), Type.Literal('run-only'), Type.Literal('read-only')])),
  nodeTypes: Type.Optional(Names),
  categories: Type.Optional(Names),
  providers: Type.Optional(Names),
  budgets: Type.Optional(BudgetLimitsBody),
}, { additionalProperties: false });
