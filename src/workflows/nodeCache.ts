import type { Queryable } from '../db/pool.js';
import { mapFileRefs } from './inputs.js';
import { rowOf, rowsOf } from '../db/typed.js';
import * as q from './queries.js';

/**
 * The node cache, the one module that looks entries up and stores them (its SQL: queries.ts
 * cacheLookupSql / cacheStoreSql, also embedded in the node settle and claim statements): a completed node's stored output by account and cache key (node type, sub-model and
 * inputs, files by content hash), so an identical node in a later run is served without running.
 */

/** Content hashes of the files an input refers to, by file id (the cache key uses them, not ids). */
export async function fileShas(tx: Queryable, value: unknown): Promise<Map<string, string>> {
  const ids: string[] = [];
  mapFileRefs(value, (id) => ids.push(id));
  if (ids.length === 0) return new Map();
  const r = await rowsOf<{ id: string; sha256: string }>(tx, q.FILE_SHAS, [ids]);
  return new Map(r.map((x) => [x.id, x.sha256]));
}

/** A usable cached output, or undefined: an entry is usable only while every file it refers to is still stored. */
export async function cachedOutput(tx: Queryable, accountId: string, key: string): Promise<Record<string, unknown> | undefined> {
  const hit = await rowOf<{ output: Record<string, unknown> }>(tx, q.CACHE_LOOKUP, [accountId, key]);
  return hit ? usableOutput(tx, hit.output) : undefined;
}

/** cachedOutput for several keys at once (one query): the usable outputs found, by key. */
export async function cachedOutputs(tx: Queryable, accountId: string, keys: string[]): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  if (keys.length === 0) return found;
  for (const hit of await rowsOf<{ cache_key: string; output: Record<string, unknown> }>(tx, q.CACHE_LOOKUP_MANY, [accountId, keys])) {
    const usable = await usableOutput(tx, hit.output);
    if (usable) found.set(hit.cache_key, usable);
  }
  return found;
}

/** A cached output found by a lookup of the caller's own, if it is usable (cachedOutput). */
export async function usableOutput(tx: Queryable, output: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
  const ids: string[] = [];
  mapFileRefs(output, (id) => ids.push(id));
  if (ids.length > 0 && (await rowOf<{ n: number }>(tx, q.LIVE_FILES, [ids]))!.n !== new Set(ids).size) return undefined;
  return output;
}

/**
 * Stores a completed node's output under its key (the same store SETTLE_NODE makes in its statement:
 * queries.ts cacheStoreSql). For a node completed outside a settle, and for tests of the cache.
 */
export async function storeCachedOutput(tx: Queryable, e: { accountId: string; key: string; nodeType: string; output: unknown; workflowId: string | null; runId: string }): Promise<void> {
  await tx.query(q.CACHE_STORE, [e.accountId, e.key, e.nodeType, JSON.stringify(e.output), e.workflowId, e.runId]);
}
