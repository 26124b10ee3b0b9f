import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { catalogView, modelEntry, pricingView, schemaView } from '../../catalog/views.js';
import { search } from '../../catalog/search.js';
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

  app.get('/v1/models/catalog', {
    schema: { tags, summary: 'Catalog of models by category, with pricing summaries', response: withErrors({ 200: Type.Ref(CatalogResponse) }) },
  }, async () => catalogView(catalog));

  app.get('/v1/models/:modelId/schema', {
    schema: { tags, summary: 'Input schema of a model', params: ModelIdParams, response: withErrors({ 200: Type.Ref(ModelSchema) }, [404]) },
  }, async (req) => schemaView(catalog, catalog.resolveModelId(req.params.modelId)));

  app.get('/v1/models/:modelId/pricing', {
    schema: { tags, summary: 'Pricing of a model', params: ModelIdParams, response: withErrors({ 200: Type.Ref(ModelPricing) }, [404]) },
  }, async (req) => pricingView(catalog, catalog.resolveModelId(req.params.modelId)));
}
