import type { GraphEdge, GraphNode, RequestField } from '../../workflows/types.js';
import type { FieldSpec, OutputSpec, FineCategory } from '../../catalog/types.js';
import type { SearchEntry as CatalogSearchEntry } from '../../catalog/search.js';

/** What the page hands the editor (the `editor-config` JSON block). */
export interface WorkflowView {
  id: string;
  name: string;
  description: string;
  slug?: string;
  isSystem: boolean;
  nodes: GraphNode[];
  edges: GraphEdge[];
  requestNodeId: string | null;
  requestFields: RequestField[];
}

export interface EditorConfig {
  csrfToken: string;
  workflow: WorkflowView | null;
  requestFieldTypes: string[];
}

export interface CatalogMode {
  subModelId: string;
  label: string;
  category: FineCategory;
  description: string;
  fields: FieldSpec[];
  outputs: OutputSpec[];
  available: boolean;
}

export interface CatalogModel {
  nodeType: string;
  name: string;
  description: string;
  category: string;
  accent: string;
  provider: string;
  multiMode: boolean;
  /** The mode a node without subModelId runs. */
  defaultSubModelId: string;
  available: boolean;
  unavailableReason?: string;
  deprecated?: { at: string; replacement: string };
  modes: CatalogMode[];
}

/** The search's own entry (catalog/search.ts), less what the palette does not show. */
export type SearchEntry = Omit<CatalogSearchEntry, 'engine' | 'note'>;

export interface SearchResult {
  modelCatalog?: Record<string, SearchEntry[]>;
  noMatch?: string;
}

export interface NodeRunView {
  nodeId: string;
  status: string;
  cached: boolean;
  output?: Record<string, unknown> | null;
  error: unknown;
  estimatedCredits: number;
  actualCredits: number;
}

export interface RunView {
  id: string;
  status: string;
  error: unknown;
  outputs: Record<string, unknown>;
  estimatedCredits: number;
  actualCredits: number;
  nodeRuns: NodeRunView[];
}

export class ApiError extends Error {
  constructor(message: string, readonly status: number, readonly body: any) {
    super(message);
  }
}

export function readConfig(): EditorConfig {
  const el = document.getElementById('editor-config');
  return JSON.parse(el?.textContent ?? '{}') as EditorConfig;
}

let csrf = '';
export function setCsrf(token: string): void {
  csrf = token;
}

/** Same-origin JSON calls to the web app's editor routes, with the session cookie and CSRF token. */
export async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    credentials: 'same-origin',
    headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(method !== 'GET' ? { 'x-csrf-token': csrf } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const parsed = await res.json().catch(() => undefined);
  if (!res.ok) throw new ApiError(parsed?.message ?? `${method} ${url} answered ${res.status}`, res.status, parsed);
  return parsed as T;
}

export async function upload(file: File): Promise<string> {
  const res = await fetch('/editor/files', {
    method: 'POST', credentials: 'same-origin',
    headers: { 'content-type': file.type || 'application/octet-stream', 'x-csrf-token': csrf, 'x-file-name': file.name.replace(/[^\x20-\x7e]/g, '_') },
    body: file,
  });
  const parsed = await res.json().catch(() => undefined);
  if (!res.ok) throw new ApiError(parsed?.message ?? `upload answered ${res.status}`, res.status, parsed);
  return parsed.url as string;
}

/**
 * Follows a run's Server-Sent Events (the stream /v1/runs/{id}/events serves) and calls `onEvent` for each;
 * resolves when the stream ends (after the run's final event) or is aborted.
 */
export async function followEvents(runId: string, onEvent: (type: string) => void, signal: AbortSignal): Promise<void> {
  const res = await fetch(`/editor/runs/${encodeURIComponent(runId)}/events`, { credentials: 'same-origin', headers: { accept: 'text/event-stream' }, signal });
  if (!res.ok || !res.body) throw new ApiError(`the run's event stream answered ${res.status}`, res.status, undefined);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const type = /^event: (.*)$/m.exec(block)?.[1];
      // Streamed output deltas (many a second) do not change the run the editor shows: no refresh for them.
      if (type && type !== 'run.output.delta') onEvent(type);
    }
  }
}
