import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { sendError } from '../errorReplies/body.js';
import { capConnectionsPerAddress, nodeServerOptions } from '../http/connections.js';
import { routedUrl } from '../http/pathForms.js';
import { registerOpenApi } from '../http/plugins/openapi.js';
import type { Logger } from 'pino';
import { maskUrlSecrets } from '../logMasks.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { newTraceId } from '../ids.js';
import type { Services } from '../services.js';
import { clientErrorHandler, registerErrorHandling } from '../http/plugins/errors.js';
import { registerAuth } from '../http/plugins/auth.js';
import { registerValidation } from '../http/plugins/validation.js';
import { registerJsonBody } from '../http/plugins/jsonBody.js';
import { registerTracing } from '../http/plugins/tracing.js';
import { healthRoutes } from '../http/routes/health.js';
import { creditRoutes } from '../http/routes/credits.js';
import { keyRoutes } from '../http/routes/keys.js';
import { KEY_SCHEMAS } from '../contract/keys.js';
import { ErrorResponse } from '../contract/errors.js';
import { CatalogResponse, ModelEntry, ModelPricing, ModelSchema, SearchResponse, SubModel } from '../contract/models.js';
import { modelRoutes } from '../http/routes/models.js';
import { estimateRoutes } from '../http/routes/estimates.js';
import { deprecatedRoutes } from '../http/routes/deprecated.js';
import { modelRunRoutes } from '../http/routes/modelRuns.js';
import { batchRoutes } from '../http/routes/batches.js';
import { BatchRunSchema, BatchSchema } from '../contract/batches.js';
import { fileRoutes } from '../http/routes/files.js';
import { uploadRoutes } from '../http/routes/uploads.js';
import { ledgerRoutes } from '../http/routes/ledger.js';
import { webhookRoutes } from '../http/routes/webhooks.js';
import { runEventRoutes } from '../http/routes/runEvents.js';
import { workflowRoutes } from '../http/routes/workflows.js';
import { workflowRunRoutes } from '../http/routes/workflowRuns.js';
import { streamRunEvents } from '../http/routes/runEvents.js';
import { mcpRoutes } from '../http/routes/mcp.js';
import { WorkflowSchema } from '../contract/workflows.js';
import type { Metrics } from '../ops/metrics.js';
import { registerMetrics } from '../ops/metricsHttp.js';
import { browserErrorPage, webApp } from '../web/plugin.js';
import { EventTypeSchema, FileViewSchema, NodeRunSchema, RunCreatedSchema, WebhookConfigSchema, WebhookEventSchema, WorkflowNodeRunSchema, WorkflowRun } from '../contract/runs.js';

export interface AppOptions {
  /** The process logger; omitted, the app logs nothing (tests). */
  logger?: Logger;
  /** Told of every route as it is registered. */
  onRoute?: (route: { method: string; url: string }) => void;
  /** Serve /metrics and count requests (only when the operator enabled metrics). */
  metrics?: { metrics: Metrics; token: string | undefined };
}

/**
 * Builds the HTTP face of a process over already-started services: the API (http/: plugins, then routes) and
 * the web app (web/) mounted side by side. Routes stay thin: parse, call a service, shape the reply.
 */
export async function buildApp(services: Services, opts: AppOptions = {}): Promise<FastifyInstance> {
  const app = (Fastify({
    ...(opts.logger ? { loggerInstance: opts.logger } : { logger: false }),
    genReqId: () => newTraceId(),
    requestIdHeader: false,
    // Fastify logs two lines per request (received, completed); one line at the end carries the same facts
    // (see the onResponse hook below) at half the cost on the hottest path.
    logController: new LogController({ requestIdLogLabel: 'traceId', disableRequestLogging: true }),
    bodyLimit: services.config.bodyLimitBytes,
    // Slow or idle sockets end (src/http/connections.ts): Fastify's own defaults leave the request time-out off.
    http: nodeServerOptions(services.config.http),
    requestTimeout: services.config.http.requestTimeoutMs,
    keepAliveTimeout: services.config.http.keepAliveTimeoutMs,
    // Behind a load balancer (docs/deploy.md), req.ip is the client's address only if its proxies are trusted.
    trustProxy: services.config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // `/api/v1/...` and `/api/mcp` (the hosted service's form) route as `/v1/...` and `/mcp` (pathForms.ts).
    rewriteUrl: (req) => routedUrl(req.url ?? '/'),
    clientErrorHandler,
    // Malformed URLs (bad percent-encoding) get the same error body as everything else.
    frameworkErrors: (err, req, reply) => {
      reply.header('X-Request-Id', req.id);
      sendError(req as FastifyRequest, reply as FastifyReply, new AppError('VALIDATION_ERROR', err.message));
    },
  }) as unknown as FastifyInstance).withTypeProvider<TypeBoxTypeProvider>();

  capConnectionsPerAddress(app.server, services.config.http.connectionsPerAddress);
  registerTracing(app);

  // Hooks that never wait are written callback-style: an async hook costs every request a promise and a
  // microtask turn for nothing.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('X-Request-Id', req.id);
    done();
  });
  if (opts.logger) {
    app.addHook('onResponse', (req, reply, done) => {
      // A signed file URL's signature is a bearer credential until it expires: it stays out of the log.
      req.log.info({ method: req.method, url: maskUrlSecrets(req.originalUrl), statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
      done();
    });
  }
  if (opts.onRoute) {
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) opts.onRoute!({ method, url: route.url });
    });
  }
  registerValidation(app);
  registerJsonBody(app);
  registerErrorHandling(app, { browserPage: browserErrorPage });
  registerAuth(app, services.keys);
  if (opts.metrics) registerMetrics(app, opts.metrics.metrics, opts.metrics.token);

  app.addSchema(ErrorResponse);
  await registerOpenApi(app, services.config.publicUrl);
  await app.register(healthRoutes, { services });
  for (const schema of [SubModel, ModelEntry, ModelSchema, ModelPricing, SearchResponse, CatalogResponse, EventTypeSchema, WebhookEventSchema, WebhookConfigSchema, FileViewSchema, NodeRunSchema, RunCreatedSchema, WorkflowSchema, WorkflowNodeRunSchema, WorkflowRun, BatchRunSchema, BatchSchema]) app.addSchema(schema);
  for (const schema of KEY_SCHEMAS) app.addSchema(schema);
  await app.register(creditRoutes, { services });
  await app.register(keyRoutes, { services });
  await app.register(modelRoutes, { services });
  await app.register(estimateRoutes, { services });
  await app.register(deprecatedRoutes, { services });
  await app.register(modelRunRoutes, { services });
  await app.register(batchRoutes, { services });
  await app.register(fileRoutes, { services });
  await app.register(uploadRoutes, { services });
  await app.register(ledgerRoutes, { services });
  await app.register(webhookRoutes, { services });
  await app.register(runEventRoutes, { services });
  await app.register(workflowRoutes, { services });
  await app.register(workflowRunRoutes, { services });
  await app.register(mcpRoutes, { services });
  // The web app (sign-in, settings, runs, workflows) at `/`, in its own encapsulated context, beside the API:
  // it streams run events through the API's own stream, handed in here.
  await app.register(webApp, { services, streamRunEvents });
  return app;
}
