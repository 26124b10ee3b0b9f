import { EVENT_TYPES } from '../contract/webhooks.js';

/**
 * What the OpenAPI document says beyond the route schemas, by rule and in one place: operation ids (the
 * SDK's method names), the error statuses every route can answer with, the response headers, media types
 * of downloads and event streams, the signed-URL alternative to a key, parameter optionality and examples.
 * `completeDocument` runs over the document @fastify/swagger generates from the routes; it is pure.
 */

/** `METHOD /path/{param}` → operationId. Named as the SDK calls them: `models.list` is `client.models.list()`. */
export const OPERATION_IDS: Record<string, string> = {
  'GET /v1/models': 'models.list',
  'GET /v1/models/search': 'models.search',
  'GET /v1/models/catalog': 'models.catalog',
  'GET /v1/models/{modelId}/schema': 'models.schema',
  'GET /v1/models/{modelId}/pricing': 'models.pricing',
  'GET /v1/nodes/deprecated-models': 'models.deprecated',
  'GET /v1/nodes/deprecated-models/{nodeType}/runs': 'models.deprecatedRuns',
  'POST /v1/nodes/estimate-credits': 'estimates.node',
  'POST /v1/workflows/estimate-credits': 'estimates.workflow',
  'GET /v1/credits/balance': 'credits.balance',
  'GET /v1/credits/ledger': 'credits.ledger',
  'GET /v1/credits/budgets': 'credits.budgets',
  'PATCH /v1/credits/budgets': 'credits.setBudgets',
  'GET /v1/keys': 'keys.list',
  'GET /v1/keys/{keyId}': 'keys.get',
  'PATCH /v1/keys/{keyId}': 'keys.update',
  'POST /v1/nodes/{nodeType}/run': 'nodeRuns.run',
  'GET /v1/nodes/runs': 'nodeRuns.list',
  'GET /v1/nodes/runs/{runId}': 'nodeRuns.get',
  'POST /v1/nodes/runs/{runId}/cancel': 'nodeRuns.cancel',
  'GET /v1/nodes/runs/{runId}/events': 'nodeRuns.events',
  'POST /v1/nodes/{nodeType}/batch': 'batches.create',
  'GET /v1/batches/{batchId}': 'batches.get',
  'POST /v1/batches/{batchId}/cancel': 'batches.cancel',
  'POST /v1/workflows': 'workflows.create',
  'POST /v1/workflows/quick-create': 'workflows.quickCreate',
  'GET /v1/workflows': 'workflows.list',
  'GET /v1/workflows/{id}': 'workflows.get',
  'PATCH /v1/workflows/{id}': 'workflows.update',
  'DELETE /v1/workflows/{id}': 'workflows.delete',
  'POST /v1/workflows/{id}/nodes': 'workflows.addNode',
  'PATCH /v1/workflows/{id}/nodes/{nodeId}': 'workflows.updateNode',
  'DELETE /v1/workflows/{id}/nodes/{nodeId}': 'workflows.deleteNode',
  'POST /v1/workflows/{id}/edges': 'workflows.addEdge',
  'DELETE /v1/workflows/{id}/edges/{edgeId}': 'workflows.deleteEdge',
  'POST /v1/workflows/{id}/duplicate': 'workflows.duplicate',
  'DELETE /v1/workflows/{id}/cache': 'workflows.clearCache',
  'GET /v1/system-workflows': 'workflows.systemList',
  'POST /v1/runs': 'runs.run',
  'GET /v1/runs': 'runs.list',
  'GET /v1/runs/{runId}': 'runs.get',
  'POST /v1/runs/batch': 'runs.batch',
  'POST /v1/runs/{runId}/cancel': 'runs.cancel',
  'GET /v1/runs/{runId}/events': 'runs.events',
  'GET /v1/webhooks/secret': 'webhooks.secret',
  'POST /v1/webhooks/secret/rotate': 'webhooks.rotateSecret',
  'GET /v1/webhooks/deliveries': 'webhooks.deliveries',
  'POST /v1/webhooks/deliveries/{eventId}/replay': 'webhooks.replay',
  'GET /v1/files/{fileId}': 'files.download',
  'DELETE /v1/files/{fileId}': 'files.delete',
  'POST /v1/files': 'files.upload',
  'GET /v1/files': 'files.list',
  'GET /v1/files/{fileId}/metadata': 'files.get',
  'POST /v1/uploads': 'files.startDirectUpload',
  'POST /v1/uploads/{uploadId}/complete': 'files.completeDirectUpload',
  'DELETE /v1/uploads/{uploadId}': 'files.abortDirectUpload',
};

const STATUS_TEXT: Record<string, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted: the run is queued (or, with Prefer: wait, still going)', 204: 'No Content', 206: 'Partial Content (a Range request)',
  400: 'Bad request: VALIDATION_ERROR, INVALID_JSON, INVALID_GRAPH, TOO_MANY_NODES …', 401: 'Missing, invalid, expired or revoked API key (or an invalid signed URL)',
  403: 'Forbidden: not enough credits (INSUFFICIENT_CREDITS), a spend limit of the account or of the key would be passed (BUDGET_EXCEEDED, naming the limit and when it resets), its role or model allow-list refuses the call (KEY_ROLE, KEY_SCOPE_MODEL), or a system workflow cannot be changed', 404: 'Not found (or another account\'s)', 405: 'Method not allowed',
  409: 'Conflict: Idempotency-Key reused with another body, or a concurrent change', 410: 'The model is deprecated; the message names its replacement',
  413: 'Body over the size limit', 415: 'The body is not application/json', 416: 'Range not satisfiable', 429: 'Rate limited; retry after Retry-After seconds',
  500: 'Internal error (a bug; never for bad input)', 503: 'Temporarily unavailable (the model cannot run here now, or the database connection was lost); retry',
};

const HEADERS = {
  'X-Request-Id': { description: 'The request\'s trace id (req_…), the same as traceId in an error body', schema: { type: 'string', pattern: '^req_' } },
  'X-RateLimit-Limit': { description: 'Requests allowed in the key\'s tighter window (per minute or per day)', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in that window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When that window resets, in milliseconds since the Unix epoch', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
};
const headerName = (h: string) => h.replace(/-/g, '');
const headerRef = (h: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${headerName(h)}` });

/** Statuses every authenticated /v1 operation can answer with; a body adds 413 and 415. */
const ALWAYS = ['400', '401', '429', '500', '503'];
const WITH_BODY = ['413', '415'];
/** Statuses some routes give that their schemas cannot know by rule. */
const EXTRA: Record<string, string[]> = {
  'POST /v1/nodes/estimate-credits': ['404'],
  'POST /v1/workflows/estimate-credits': ['404'],
  'GET /v1/files/{fileId}': ['404', '416'],
  'DELETE /v1/files/{fileId}': ['404'],
  'GET /v1/nodes/runs/{runId}/events': ['404'],
  'GET /v1/runs/{runId}/events': ['404'],
};

const binary = { schema: { type: 'string', format: 'binary' } };
const sse = {
  schema: { type: 'string', description: 'Server-Sent Events: `id: <event id>`, `event: <type>`, `data: <the webhook payload JSON>`, blank line; closes after run.completed, run.failed or run.canceled' },
  example: 'id: 42\nevent: run.completed\ndata: {"type":"run.completed","runId":"run_…","data":{"status":"COMPLETED"}}\n\n',
};

type Json = Record<string, any>;

/** Adds what the route schemas cannot say (see the module comment); `examples` by operationId. */
export function completeDocument(doc: Json, examples: Record<string, Record<string, unknown>> = {}): Json {
  doc.info = { ...doc.info, license: { name: 'MIT', identifier: 'MIT' } };
  doc.components ??= {};
  doc.components.headers = Object.fromEntries(Object.entries(HEADERS).map(([h, v]) => [headerName(h), v]));
  doc.components.securitySchemes = {
    ...doc.components.securitySchemes,
    fileSignature: { type: 'apiKey', in: 'query', name: 'sig', description: 'The sig of a signed file URL from a run output (with exp); no API key needed until it expires' },
    fileExpiry: { type: 'apiKey', in: 'query', name: 'exp', description: 'The exp (Unix seconds) of a signed file URL' },
  };
  doc.tags = ['models', 'nodes', 'runs', 'workflows', 'credits', 'webhooks', 'files'].map((name) => ({ name, description: TAGS[name] }));
  // What a receiver gets: one POST per event, signed per Standard Webhooks (the same JSON is the data of SSE messages).
  doc.webhooks = Object.fromEntries(EVENT_TYPES.map((type) => [type, { post: {
    operationId: `webhook.${type}`,
    summary: `The ${type} event`,
    description: 'Sent to the run\'s webhook.url, with webhook-id (the event id), webhook-timestamp and webhook-signature (v1,<base64 HMAC-SHA256 of id.timestamp.body>) headers. Any 2xx is delivered; 410 stops; anything else is retried on the schedule.',
    security: [],
    parameters: ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({ in: 'header', name, required: true, schema: { type: 'string' } })),
    requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookEvent' } } } },
    responses: { '200': { description: 'Delivered (any 2xx)' }, '410': { description: 'Gone: no more attempts' } },
  } }]));
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      const key = `${method.toUpperCase()} ${path}`;
      const id = OPERATION_IDS[key];
      if (id) op.operationId = id;
      op.responses ??= {};
      for (const s of [...ALWAYS, ...(op.requestBody ? WITH_BODY : []), ...(EXTRA[key] ?? [])]) {
        op.responses[s] ??= { content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } } };
      }
      // A parameter the server fills with its default is optional to the caller.
      for (const p of (op.parameters ?? []) as Json[]) if (p.schema && 'default' in p.schema) p.required = false;
      if (path.endsWith('/events')) {
        op.responses['200'] = { content: { 'text/event-stream': sse } };
        op.parameters = [...(op.parameters ?? []), { in: 'header', name: 'Last-Event-ID', required: false, description: 'Resume after this event id', schema: { type: 'string', pattern: '^\\d{1,18}$' } }];
      }
      // The upload route reads its body itself (a stream, never buffered): its forms are stated here.
      if (key === 'POST /v1/files') {
        op.requestBody = {
          required: true,
          content: {
            'application/octet-stream': { schema: { type: 'string', format: 'binary', description: 'The file itself; or send it with its own media type (image/*, audio/*, video/*)' } },
            'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' }, filename: { type: 'string' }, contentType: { type: 'string' } } } },
            'application/json': { schema: { type: 'object', description: 'One of url (https, fetched by the server), data (a data: URI or base64) or base64', properties: {
              url: { type: 'string' }, data: { type: 'string' }, base64: { type: 'string' }, contentType: { type: 'string' }, filename: { type: 'string', maxLength: 200 },
            } } },
          },
        };
      }
      if (key === 'GET /v1/files/{fileId}') {
        op.security = [{ bearerAuth: [] }, { fileSignature: [], fileExpiry: [] }];
        const fileHeaders = { 'Accept-Ranges': { schema: { type: 'string', const: 'bytes' } }, ETag: { schema: { type: 'string' } }, 'Content-Length': { schema: { type: 'integer' } } };
        op.responses['200'] = { content: { '*/*': binary }, headers: fileHeaders };
        op.responses['206'] = { content: { '*/*': binary }, headers: { ...fileHeaders, 'Content-Range': { schema: { type: 'string' } } } };
        op.parameters = [...(op.parameters ?? []), { in: 'header', name: 'Range', required: false, description: 'One byte range, bytes=a-b', schema: { type: 'string' } }];
      }
      for (const [status, res] of Object.entries(op.responses as Record<string, Json>)) {
        res.description = STATUS_TEXT[status] ?? res.description;
        res.headers = { ...(res.headers ?? {}), 'X-Request-Id': headerRef('X-Request-Id') };
        // Every answer to a request with a valid key carries the key's rate-limit state.
        if (status !== '401') {
          for (const h of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const) res.headers[h] = headerRef(h);
        }
        if (status === '429' || status === '503') res.headers['Retry-After'] = headerRef('Retry-After');
      }
      if (key === 'POST /v1/nodes/{nodeType}/run' || key === 'POST /v1/runs') {
        for (const s of ['200', '202']) {
          op.responses[s].headers = {
            ...op.responses[s].headers,
            Location: { description: 'The run\'s URL', schema: { type: 'string' } },
            'Idempotent-Replayed': { description: 'true when an earlier request with this Idempotency-Key created the run', schema: { type: 'string', const: 'true' } },
            'Preference-Applied': { description: 'wait=N when Prefer: wait=N was honoured', schema: { type: 'string' } },
          };
        }
      }
      const example = id ? examples[id] : undefined;
      if (example) {
        for (const [status, value] of Object.entries(example)) {
          const media = op.responses[status]?.content?.['application/json'];
          if (media) media.example = value;
        }
      }
    }
  }
  return doc;
}

const TAGS: Record<string, string> = {
  models: 'Discover models: list, search, input schema, pricing',
  nodes: 'Run one model (a node) and read its runs; cost estimates',
  runs: 'Run workflows and read their runs',
  workflows: 'Build workflows: graphs of model nodes between a Request and a Response node',
  credits: 'Balance and ledger, in microcredits',
  webhooks: 'Signing secret and delivery log',
  files: 'Upload files, list the media library, download artifacts by key or signed URL',
};
