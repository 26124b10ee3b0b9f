import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { catalogView, modelEntry, pricingView, schemaView } from '../../catalog/views.js';
import { search } from '../../catalog/search.js';
import { AppError } from '../../errors.js';
import { AddressLimiter } from '../addressLimiter.js';
import { type TypedApp, withErrors } from '../schemas/common.js';
import { CatalogResponse, ModelEntry, ModelPricing, ModelSchema, SearchResponse } from '../../contract/models.js';

const ModelIdParams = Type.Object({ modelId: Type.String({ minLength: 1, maxLength: 100 }) });

/** Model discovery (spec 4.5): list, search, catalog, per-model schema and pricing. */
export async function modelRoutes(app: TypedApp, { services }: { services: Services }): Promise<void> {
  const { catalog } = services;
  const tags = ['models'];

  // The list cannot change while the process runs (availability is checked once at start), so it is
  // serialised once, by the route's own response serialiser, and every later request sends those bytes.
  let modelList: Buffer | undefined;
  app.get('/v1/models', {
    schema: { tags, summary: 'List all models', response: withErrors({ 200: Type.Array(Type.Ref(ModelEntry)) }) },
  }, async (_req, reply) => {
    // Serialised and encoded once: every answer sends the same bytes.
    modelList ??= Buffer.from(reply.serialize(catalog.models.map((m) => modelEntry(catalog, m))) as string);
    return reply.type('application/json; charset=utf-8').send(modelList);
  });

  app.get('/v1/models/search', {
    schema: {
      tags, summary: 'Search models grouped by category',
      querystring: Type.Object({ query: Type.Optional(Type.String({ maxLength: 200 })) }),
      response: withErrors({ 200: Type.Ref(SearchResponse) }),
    },
  }, async (req) => search(catalog, req.query.query));

  // Public, as on the hosted service (a setting may require a key); keyless requests are limited per
  // client address, keyed ones count against their key as every /v1 request does. Built once: the
  // catalog cannot change while the process runs.
  const limiter = new AddressLimiter(services.config.catalogRatePerMinute);
  let catalogBody: Buffer | undefined;
  app.get('/v1/models/catalog', {
    config: { auth: services.config.catalogRequiresKey ? 'required' : 'optional' },
    schema: {
      tags, summary: 'The public model catalog (hosted shape)',
      description: 'Every live model keyed by parentModelId, with its sub-models, input and output fields in the hosted vocabulary, cost rule and default estimates. No key needed (unless the operator set ATELIER_CATALOG_REQUIRES_KEY=1); requests without a key are limited per client address (ATELIER_CATALOG_RATE_PER_MINUTE).',
      security: services.config.catalogRequiresKey ? [{ bearerAuth: [] }] : [{}, { bearerAuth: [] }],
      response: withErrors({ 200: Type.Ref(CatalogResponse) }),
    },
    onRequest: (req, reply, done) => {
      if (req.principal) return done();
      const { admitted, window, nowMs } = limiter.take(req.ip);
      reply.headers({ 'X-RateLimit-Limit': String(window.limit), 'X-RateLimit-Remaining': String(window.limit - window.used), 'X-RateLimit-Reset': String(window.resetMs) });
      if (admitted) return done();
      const retry = Math.max(1, Math.ceil((window.resetMs - nowMs) / 1000));
      done(new AppError('RATE_LIMITED', `Too many catalog requests from this address; retry in ${retry} s, or send an API key`, { headers: { 'Retry-After': String(retry) } }));
    },
  }, async (_req, reply) => {
    catalogBody ??= Buffer.from(reply.serialize(catalogView(catalog, new Date().toISOString())) as string);
    return reply.type('application/json; charset=utf-8').send(catalogBody);
  });

  app.get('/v1/models/:modelId/schema', {
    schema: { tags, summary: 'Input schema of a model', params: ModelIdParams, response: withErrors({ 200: Type.Ref(ModelSchema) }, [404]) },
  }, async (req) => schemaView(catalog, catalog.resolveModelId(req.params.modelId)));

  app.get('/v1/models/:modelId/pricing', {
    schema: { tags, summary: 'Pricing of a model', params: ModelIdParams, response: withErrors({ 200: Type.Ref(ModelPricing) }, [404]) },
  }, async (req) => pricingView(catalog, catalog.resolveModelId(req.params.modelId)));
}
