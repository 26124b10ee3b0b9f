import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { AppError } from '../../errors.js';
import { defaultMode, isMultiMode } from '../../catalog/catalog.js';
import { search } from '../../catalog/search.js';
import { estimateNodes, type EstimateNode } from '../../catalog/estimate.js';
import { MAX_NODES } from '../../contract/models.js';
import { EdgeInputSchema, NodeInputSchema, REQUEST_FIELD_TYPES } from '../../contract/workflows.js';
import type { RunEventStreamer } from '../context.js';
import { workflowRunView } from '../../workflows/runView.js';
import { actingPrincipal, pageContext, sendHtml, signedIn } from '../context.js';
import { editorPage } from '../views/editor.js';
import { MAX_UPLOAD_BYTES, storeUpload } from '../../files/upload.js';
import { scriptCapable } from '../../files/servePolicy.js';

const json = { web: 'json' as const };
const Graph = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  description: Type.Optional(Type.String({ maxLength: 5000 })),
  nodes: Type.Array(NodeInputSchema, { maxItems: MAX_NODES }),
  edges: Type.Array(EdgeInputSchema, { maxItems: 1000 }),
};
const MEDIA_TYPES = /^(image|audio|video)\/[a-z0-9.+-]+$/;
const MAX_UPLOAD = MAX_UPLOAD_BYTES;

/** The models the editor's palette and forms need: every model, its modes' fields and outputs, and whether it can run here. */
export function editorCatalog(services: Services) {
  // Retired models come too (a saved workflow may still hold one), marked so the palette leaves them out.
  return services.catalog.models.map((model) => {
    const a = services.catalog.availability(model);
    return {
      nodeType: model.nodeType,
      name: model.name,
      description: model.description,
      category: model.category,
      accent: model.accent,
      provider: model.provider,
      multiMode: isMultiMode(model),
      defaultSubModelId: defaultMode(model).subModelId,
      available: a.available,
      ...(a.available ? {} : { unavailableReason: a.reason ?? 'unavailable' }),
      ...(model.deprecated ? { deprecated: model.deprecated } : {}),
      modes: model.modes.map((mode) => ({
        subModelId: mode.subModelId,
        label: mode.label,
        category: mode.category,
        description: mode.description ?? model.description,
        fields: mode.fields,
        outputs: mode.outputs,
        available: services.catalog.availability(model, mode).available,
      })),
    };
  });
}

/**
 * The visual workflow editor: its pages (`/workflows/new`, `/workflows/{id}/edit`) and the same-origin JSON
 * routes it talks to. Every route acts for the signed-in user's account through the services the /v1 API
 * uses (the API itself stays key-only); mutations carry the session's CSRF token in X-CSRF-Token.
 */
export async function editorRoutes(app: FastifyInstance, { services, streamRunEvents }: { services: Services; streamRunEvents: RunEventStreamer }): Promise<void> {
  const acct = (req: FastifyRequest) => actingPrincipal(signedIn(req).user).accountId;

  app.get('/workflows/new', async (req, reply) => {
    const ctx = await pageContext(services, req);
    return sendHtml(reply, editorPage(ctx, { title: 'New workflow', config: { csrfToken: ctx.csrfToken, workflow: null, requestFieldTypes: REQUEST_FIELD_TYPES } }));
  });

  app.get('/workflows/:id/edit', async (req, reply) => {
    const ctx = await pageContext(services, req);
    const workflow = await services.workflows.get(actingPrincipal(ctx.user).accountId, (req.params as { id: string }).id);
    return sendHtml(reply, editorPage(ctx, { title: workflow.isSystem ? `${workflow.name} (read-only)` : `Edit ${workflow.name}`, config: { csrfToken: ctx.csrfToken, workflow, requestFieldTypes: REQUEST_FIELD_TYPES } }));
  });

  app.get('/editor/catalog', { config: json }, async () => ({ models: editorCatalog(services) }));

  // The palette's search box: exactly what GET /v1/models/search answers.
  app.get('/editor/models/search', {
    config: json,
    schema: { querystring: Type.Object({ query: Type.Optional(Type.String({ maxLength: 200 })) }) },
  }, async (req) => search(services.catalog, (req.query as { query?: string }).query));

  // The figure of POST /v1/workflows/estimate-credits.
  app.post('/editor/estimate', {
    config: json,
    schema: { body: Type.Object({ nodes: Type.Array(Type.Object({ type: Type.String({ maxLength: 100 }), subModelId: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])), data: Type.Optional(Type.Object({}, { additionalProperties: true })) })) }) },
  }, async (req) => {
    const estimates = estimateNodes(services.catalog, (req.body as { nodes: EstimateNode[] }).nodes);
    return { totalMicrocredits: estimates.reduce((s, e) => s + e.microcredits, 0), estimates };
  });

  app.post('/editor/workflows', {
    config: json,
    schema: { body: Type.Object({ ...Graph, name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }) },
  }, async (req, reply) => reply.code(201).send(await services.workflows.create(acct(req), req.body as never)));

  app.put('/editor/workflows/:id', {
    config: json,
    schema: { body: Type.Object(Graph, { additionalProperties: false }) },
  }, async (req) => services.workflows.replaceGraph(acct(req), (req.params as { id: string }).id, req.body as never));

  app.post('/editor/workflows/:id/duplicate', { config: json }, async (req, reply) => {
    const copy = await services.workflows.duplicate(acct(req), (req.params as { id: string }).id);
    return reply.code(201).send({ id: copy.id });
  });

  app.post('/editor/workflows/:id/runs', {
    config: json,
    schema: { body: Type.Object({ values: Type.Optional(Type.Object({}, { additionalProperties: true })) }, { additionalProperties: false }) },
  }, async (req, reply) => {
    const { run } = await services.workflowRuns.create({ accountId: acct(req), workflowId: (req.params as { id: string }).id, values: (req.body as { values?: object }).values });
    return reply.code(202).send({ runId: run.id, status: run.status, estimatedCredits: Number(run.estimated_microcredits) });
  });

  // The run as GET /v1/runs/{runId} shows it (node runs with outputs, cached flags and costs).
  app.get('/editor/runs/:runId', { config: json }, async (req) => {
    const { run, nodes } = await services.workflowRuns.get(acct(req), (req.params as { runId: string }).runId);
    return workflowRunView(services.files, run, nodes, { details: true });
  });

  // The run's event stream, the one /v1/runs/{runId}/events serves, for the signed-in owner.
  app.get('/editor/runs/:runId/events', { config: json }, async (req, reply) => {
    const { runId } = req.params as { runId: string };
    await services.workflowRuns.get(acct(req), runId);
    await streamRunEvents(services, req, reply, runId);
  });

  // A media input uploaded from the form: stored as the account's file; the form gets its signed URL.
  app.register(async (upload) => {
    upload.addContentTypeParser(MEDIA_TYPES, { parseAs: 'buffer', bodyLimit: MAX_UPLOAD }, (_req, body, done) => done(null, body));
    upload.post('/editor/files', { config: json, bodyLimit: MAX_UPLOAD }, async (req, reply) => {
      const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (!MEDIA_TYPES.test(type) || !Buffer.isBuffer(req.body) || req.body.length === 0) {
        throw new AppError('VALIDATION_ERROR', 'upload an image, audio or video file', { details: [{ path: 'body', message: 'must be an image, audio or video file' }] });
      }
      // SVG (and any XML-based image) can carry script: never stored from an upload (src/files/servePolicy.ts).
      if (scriptCapable(type)) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `${type} files can carry script and are not accepted; upload a PNG, JPEG, WebP or GIF instead`);
      const name = typeof req.headers['x-file-name'] === 'string' ? req.headers['x-file-name'] : undefined;
      // The rules every upload follows (files/upload.ts), shared with MCP upload_file; quota and disk reserve live in files.save.
      const file = await storeUpload(services.files, services.db, acct(req), { data: req.body, declaredType: type, filename: name });
      return reply.code(201).send({ id: file.id, url: (await services.files.view(file)).url });
    });
  });

  // An upload the form no longer needs: deleted, so it stops counting against the account's storage quota.
  app.delete('/editor/files/:fileId', { config: json }, async (req, reply) => {
    await services.files.remove(acct(req), (req.params as { fileId: string }).fileId);
    return reply.code(204).send();
  });
}
