import type { Queryable } from '../db/pool.js';
import { mapFileRefs } from './inputs.js';
import * as q from './queries.js';

/**
 * The node cache: a completed node's stored output by account and cache key (node type, sub-model and
 * inputs, files by content hash), so an identical node in a later run is served without running.
 */

/** Content hashes of the files an input refers to, by file id (the cache key uses them, not ids). */
export async function fileShas(tx: Queryable, value: unknown): Promise<Map<string, string>> {
  const ids: string[] = [];
  mapFileRefs(value, (id) => ids.push(id));
  if (ids.length === 0) return new Map();
  const r = await tx.query(q.FILE_SHAS, [ids]);
  return new Map(r.rows.map((x) => [x.id, x.sha256]));
}

/** A usable cached output, or undefined: an entry is usable only while every file it refers to is still stored. */
export async function cachedOutput(tx: Queryable, accountId: string, key: string): Promise<Record<string, unknown> | undefined> {
  const hit = (await tx.query(q.CACHE_LOOKUP, [accountId, key])).rows[0];
  return hit ? usableOutput(tx, hit.output) : undefined;
}

/** A cached output found by a lookup of the caller's own, if it is usable (cachedOutput). */
export async function usableOutput(tx: Queryable, output: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
  const ids: string[] = [];
  mapFileRefs(output, (id) => ids.push(id));
  if (ids.length > 0 && (await tx.query(q.LIVE_FILES, [ids])).rows[0].n !== new Set(ids).size) return undefined;
  return output;
}

export async function storeCachedOutput(tx: Queryable, e: { accountId: string; key: string; nodeType: string; output: unknown; workflowId: string | null; runId: string }): Promise<void> {
  await tx.query(q.CACHE_STORE, [e.accountId, e.key, e.nodeType, JSON.stringify(e.output), e.workflowId, e.runId]);
}
