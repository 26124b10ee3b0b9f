import { isDeepStrictEqual } from 'node:util';
import type { ProviderClient } from './http.js';

/**
 * Finding the prediction a create made when its answer was lost (a time-out, a dropped connection, a 5xx).
 *
 * What Replicate's API allows: a create takes no client-chosen id or idempotency key, so the only way back
 * to the prediction is GET /v1/predictions, narrowed with `created_after` (its documented filter), newest
 * first, in pages linked by `next`. List items carry no input, so each candidate of the same model or
 * version is read whole with GET /v1/predictions/{id} and its input compared with what was sent.
 *
 * Two predictions of the same model with the same input in that window (another run of the same prompt on
 * the same Replicate account) cannot be told apart: that is `many`, and the caller fails the run rather
 * than adopt a prediction that may be another run's, or create a third.
 */

export interface ListedPrediction {
  id: string;
  status: string;
  model?: string;
  version?: string;
  input?: unknown;
  output?: unknown;
  error?: unknown;
  logs?: string | null;
  urls?: { get?: string; cancel?: string };
}

export type Lookup = { found: 'none' } | { found: 'one'; prediction: ListedPrediction } | { found: 'many'; ids: string[] };

export interface SentCreate {
  model?: string;
  versionId?: string;
  input: Record<string, unknown>;
  /** Epoch ms when the create was sent. */
  sentAt: number;
}

/** Clocks differ: candidates are those created from this long before the create was sent. */
const CLOCK_SKEW_MS = 10_000;
/** Pages of the listing read at most (100 predictions each): enough for a busy account's last minutes. */
const MAX_PAGES = 10;

export async function findCreated(client: ProviderClient, sent: SentCreate, signal: AbortSignal): Promise<Lookup> {
  const lookup = AbortSignal.any([signal, AbortSignal.timeout(30_000)]);
  const matches: ListedPrediction[] = [];
  let page: string | null = `predictions?${new URLSearchParams({ created_after: new Date(sent.sentAt - CLOCK_SKEW_MS).toISOString() })}`;
  for (let n = 0; page && n < MAX_PAGES; n++) {
    const list: { results?: ListedPrediction[]; next?: string | null } = (await client.request(page, { signal: lookup })).json();
    for (const item of list.results ?? []) {
      if (sent.versionId ? item.version !== sent.versionId : item.model !== sent.model) continue;
      const full = (await client.request(`predictions/${encodeURIComponent(item.id)}`, { signal: lookup })).json<ListedPrediction>();
      if (isDeepStrictEqual(full.input, sent.input)) matches.push(full);
    }
    page = typeof list.next === 'string' && list.next ? nextPage(client, list.next) : null;
  }
  if (matches.length === 0) return { found: 'none' };
  if (matches.length === 1) return { found: 'one', prediction: matches[0]! };
  return { found: 'many', ids: matches.map((m) => m.id) };
}

/** The next page's URL, if it stays on the configured host (the token goes with it). */
function nextPage(client: ProviderClient, next: string): string | null {
  try {
    return client.url(next).href;
  } catch {
    return null;
  }
}
