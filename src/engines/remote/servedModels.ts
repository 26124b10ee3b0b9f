import type { Availability } from '../types.js';
import type { ProviderClient } from './http.js';

/**
 * Remote availability from the provider's own answer (issue 19): an OpenAI-compatible server lists what
 * it serves at GET /models, ComfyUI lists its installed node classes at GET /object_info. A binding that
 * names a model the server does not serve, or a workflow that needs a node it lacks, is unavailable with
 * that reason — rather than every catalog model being "available" because a base URL is set.
 *
 * Engines stay within the one Engine interface; the registry asks, when an engine offers it, this extra
 * per-binding question after the engine's own availability.
 */
export interface BindingAvailability {
  bindingAvailability(options: Record<string, unknown>): Availability;
}

export function hasBindingAvailability(e: unknown): e is BindingAvailability {
  return typeof (e as Partial<BindingAvailability>)?.bindingAvailability === 'function';
}

/** What a list request found: the names, or why there is no list (the server is then unavailable). */
export type ListResult = { names: Set<string> } | { unavailable: string } | { unknown: string };

const LIST_TIMEOUT_MS = 8000;

/** GET `path` on the provider once, reading names from its answer; a 404 means the server has no such list (not an error). */
export async function fetchNameList(client: ProviderClient, path: string, read: (json: unknown) => string[]): Promise<ListResult> {
  try {
    const res = await client.request(path, { signal: AbortSignal.timeout(LIST_TIMEOUT_MS), deadline: Date.now() + LIST_TIMEOUT_MS, retry: false, accept: [404, 405, 501] });
    if (res.status >= 400) return { unknown: `${client.cfg.label} has no GET /${path} (HTTP ${res.status}); its models are assumed served` };
    return { names: new Set(read(res.json<unknown>())) };
  } catch (err) {
    return { unavailable: `${client.cfg.label}: GET /${path} failed at start: ${client.scrub((err as Error).message).split('\n')[0]}` };
  }
}

/** OpenAI's list shape: { data: [ { id } ] } (Ollama, vLLM, LM Studio and llama.cpp answer the same). */
export function openAIModelIds(json: unknown): string[] {
  const data = (json as { data?: Array<{ id?: unknown }> })?.data;
  return Array.isArray(data) ? data.map((m) => m?.id).filter((id): id is string => typeof id === 'string') : [];
}

/** ComfyUI's object_info: an object keyed by node class name. */
export function comfyNodeClasses(json: unknown): string[] {
  return json && typeof json === 'object' && !Array.isArray(json) ? Object.keys(json) : [];
}

/**
 * Whether a listed name serves a requested model. Ollama lists `name:tag` and takes `name` as
 * `name:latest`, so "llama3.2" is served by "llama3.2:latest" (but "qwen3" is not served by "qwen3:8b").
 */
export function servesModel(names: Set<string>, model: string): boolean {
  if (names.has(model)) return true;
  return !model.includes(':') && names.has(`${model}:latest`);
}

export function listSummary(names: Set<string>, max = 8): string {
  const all = [...names].sort();
  return all.length ? `${all.slice(0, max).join(', ')}${all.length > max ? `, … (${all.length})` : ''}` : 'nothing';
}
