import { fieldError } from '../errors.js';
import { EVENT_TYPES, type EventType, type WebhookConfig } from './types.js';

const FORBIDDEN_HEADERS = /^(content-type|content-length|host|connection|transfer-encoding|webhook-(id|timestamp|signature)|svix-(id|timestamp|signature)|hook-(id|timestamp|signature))$/i;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

function fail(path: string, message: string): never {
  throw fieldError(path, message);
}

/**
 * Validates the `webhook` object of a run request (its schema, WebhookConfigSchema, in src/contract/runs.ts): shape, scheme, event
 * names against what the run kind emits, metadata size and extra headers. Whether the URL's host is a
 * public address is checked separately (it needs DNS). Pure.
 */
export function parseWebhookConfig(raw: unknown, supported: readonly EventType[], path = 'webhook'): WebhookConfig | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) fail(path, 'must be an object');
  const w = raw as Record<string, unknown>;
  for (const k of Object.keys(w)) if (!['url', 'events', 'metadata', 'headers'].includes(k)) fail(`${path}.${k}`, 'is not a webhook setting');
  if (typeof w.url !== 'string' || w.url.length === 0 || w.url.length > 2048) fail(`${path}.url`, 'must be a URL of at most 2048 characters');
  let url: URL;
  try {
    url = new URL(w.url);
  } catch {
    fail(`${path}.url`, 'is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`${path}.url`, 'must use http or https');
  if (url.username || url.password) fail(`${path}.url`, 'must not carry credentials; use headers');
  let events: EventType[] | undefined;
  if (w.events !== undefined) {
    if (!Array.isArray(w.events) || w.events.length === 0) fail(`${path}.events`, 'must be a non-empty array of event types');
    events = [];
    for (const [i, e] of (w.events as unknown[]).entries()) {
      if (typeof e !== 'string' || !(EVENT_TYPES as readonly string[]).includes(e)) fail(`${path}.events[${i}]`, `must be one of ${EVENT_TYPES.join(', ')}`);
      if (!supported.includes(e as EventType)) fail(`${path}.events[${i}]`, `is not sent for this kind of run (it sends ${supported.join(', ')})`);
      if (!events.includes(e as EventType)) events.push(e as EventType);
    }
  }
  let metadata: Record<string, unknown> | undefined;
  if (w.metadata !== undefined && w.metadata !== null) {
    if (typeof w.metadata !== 'object' || Array.isArray(w.metadata)) fail(`${path}.metadata`, 'must be an object');
    if (Buffer.byteLength(JSON.stringify(w.metadata)) > 4096) fail(`${path}.metadata`, 'must be at most 4 KB as JSON');
    metadata = w.metadata as Record<string, unknown>;
  }
  let headers: Record<string, string> | undefined;
  if (w.headers !== undefined && w.headers !== null) {
    if (typeof w.headers !== 'object' || Array.isArray(w.headers)) fail(`${path}.headers`, 'must be an object of header names to string values');
    headers = {};
    const entries = Object.entries(w.headers as Record<string, unknown>);
    if (entries.length > 20) fail(`${path}.headers`, 'may hold at most 20 headers');
    for (const [name, value] of entries) {
      if (!HEADER_NAME.test(name)) fail(`${path}.headers.${name}`, 'is not a valid header name');
      if (FORBIDDEN_HEADERS.test(name)) fail(`${path}.headers.${name}`, 'is set by the service and cannot be overridden');
      if (typeof value !== 'string' || value.length > 1000 || /[\r\n\0]/.test(value)) fail(`${path}.headers.${name}`, 'must be a single-line string of at most 1000 characters');
      headers[name] = value;
    }
  }
  return { url: url.toString(), ...(events ? { events } : {}), ...(metadata ? { metadata } : {}), ...(headers ? { headers } : {}) };
}
