import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { completeDocument } from '../openapiContract.js';
import { RESPONSE_EXAMPLES } from '../openapiExamples.js';

/**
 * The OpenAPI 3.1 document is generated from the route schemas themselves, so it cannot drift from what
 * the server validates. Component names come from each shared schema's $id.
 */
export async function registerOpenApi(app: FastifyInstance, publicUrl?: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Atelier',
        version: '1.0.0',
        description: 'Run generative-AI models and multi-step workflows of them, with exact credit costs, durable runs and signed webhooks.',
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: gx_…' } } },
      security: [{ bearerAuth: [] }],
    },
    transformObject: (obj) => ('openapiObject' in obj ? completeDocument(obj.openapiObject, RESPONSE_EXAMPLES) : obj.swaggerObject),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  // servers: PUBLIC_URL when set (what clients reach), else the origin this request came to; each path
  // answers both bare and under `/api`, the hosted service's form (src/http/pathForms.ts).
  app.get('/v1/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async (req) => {
    const origin = (publicUrl ?? `${req.protocol}://${req.host}`).replace(/\/+$/, '');
    const named = publicUrl ? 'PUBLIC_URL' : 'This server';
    return {
      ...app.swagger(),
      servers: [{ url: origin, description: named }, { url: `${origin}/api`, description: `${named}, under /api as the hosted service is addressed` }],
    };
  });
  // A browsable reference at /docs (Swagger UI's assets ship inside the npm package; nothing is fetched).
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true, tryItOutEnabled: false } });
}
