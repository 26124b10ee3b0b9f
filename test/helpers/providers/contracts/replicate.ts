/**
 * Request schemas written from Replicate's published OpenAPI document (api.replicate.com/openapi.json):
 * the fields of the requests our adapter sends. Facts only.
 */

const webhookEvents = { type: 'array', items: { enum: ['start', 'output', 'logs', 'completed'] } };

export const predictionsCreate = {
  type: 'object', required: ['version', 'input'], additionalProperties: false,
  properties: { version: { type: 'string' }, input: { type: 'object' }, webhook: { type: 'string' }, webhook_events_filter: webhookEvents, stream: { type: 'boolean' } },
};

export const modelsPredictionsCreate = {
  type: 'object', required: ['input'], additionalProperties: false,
  properties: { input: { type: 'object' }, webhook: { type: 'string' }, webhook_events_filter: webhookEvents, stream: { type: 'boolean' } },
};

/** multipart/form-data: the bytes in `content`; filename, type and metadata optional. */
export const filesCreate = {
  type: 'object', required: ['content'], additionalProperties: false,
  properties: { content: { type: 'object', required: ['file'] }, filename: { type: 'string', maxLength: 255 }, type: { type: 'string' }, metadata: { type: 'string' } },
};

/** The documented query of GET /predictions. */
export const predictionsListQuery = {
  type: 'object', additionalProperties: false,
  properties: { created_after: { type: 'string', format: 'date-time' }, created_before: { type: 'string', format: 'date-time' }, cursor: { type: 'string' } },
};

/** Prefer header of the create calls. */
export const PREFER = /^wait(=([1-9]|[1-9][0-9]|60))?$/;

export function replicateRequestSchema(method: string, path: string): { schema: object; body: 'json' | 'multipart' | 'none' | 'query' } | undefined {
  const p = path.replace(/^\/v1/, '');
  if (method === 'POST' && p === '/predictions') return { schema: predictionsCreate, body: 'json' };
  if (method === 'POST' && /^\/models\/[^/]+\/[^/]+\/predictions$/.test(p)) return { schema: modelsPredictionsCreate, body: 'json' };
  if (method === 'POST' && p === '/files') return { schema: filesCreate, body: 'multipart' };
  if (method === 'GET' && p === '/predictions') return { schema: predictionsListQuery, body: 'query' };
  if (method === 'GET' && /^\/predictions\/[^/]+$/.test(p)) return { schema: {}, body: 'none' };
  if (method === 'POST' && /^\/predictions\/[^/]+\/cancel$/.test(p)) return { schema: {}, body: 'none' };
  return undefined;
}
