import { isUniqueViolation, type Queryable } from '../db/pool.js';
import { rowOf } from '../db/typed.js';
import { AppError } from '../errors.js';
import * as q from './queries.js';

/**
 * The one Idempotency-Key path, for model runs and workflow runs alike. The creation claims the key in
 * its own statement or transaction (queries.ts claimKeySql, a plain insert); a key taken before raises
 * idempotency_keys_pkey, the creation is rolled back whole, and the earlier request decides: the same
 * request within 24 h is replayed, a different one is a 409; an older claim is dropped and the creation
 * tried again. A creation refused before it claimed (no funds: `Refused`) still replays an earlier request
 * with the same key, as it did when the claim came first.
 */
export interface KeyClaim {
  accountId: string;
  key: string;
  scope: 'node-run' | 'workflow-run' | 'batch';
  requestHash: string;
}

/** Thrown by a creation refused before it could claim its key: the earlier request, if any, decides first. */
export class Refused extends Error {
  constructor(readonly refusal: Error) {
    super(refusal.message);
  }
}

const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/** 1 to 255 visible ASCII characters (model runs check it; the error names the header, http/ says where it came from). */
export function checkKeyFormat(key: string | undefined): void {
  if (key !== undefined && !KEY_FORMAT.test(key)) {
    throw new AppError('VALIDATION_ERROR', 'Idempotency-Key must be 1 to 255 visible ASCII characters', { details: [{ path: 'headers.idempotency-key', message: 'is invalid' }] });
  }
}

interface PriorRow {
  scope: string;
  request_hash: string;
  run_id: string;
  fresh: boolean;
}

/** Creates once per key: the created value, or the id of the run an earlier identical request created. */
export async function createOnce<T>(db: Queryable, claim: KeyClaim | null, create: () => Promise<T>): Promise<{ created: T } | { replayOf: string }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    let refusal: Error | undefined;
    try {
      return { created: await create() };
    } catch (err) {
      if (err instanceof Refused) refusal = err.refusal;
      else if (!claim || !isUniqueViolation(err, 'idempotency_keys_pkey')) throw err;
      if (!claim) throw refusal;
    }
    // The key was used before (or is being used right now by a request that has just committed).
    const prior = await rowOf<PriorRow>(db, q.EXISTING_IDEMPOTENCY, [claim.accountId, claim.key]);
    if (!prior) {
      if (refusal) throw refusal;
      continue;
    }
    if (!prior.fresh) {
      await db.query(q.DROP_STALE_IDEMPOTENCY, [claim.accountId, claim.key]);
      continue;
    }
    if (prior.scope !== claim.scope || prior.request_hash !== claim.requestHash) {
      throw new AppError('CONFLICT', 'This Idempotency-Key was already used with a different request; use a new key');
    }
    return { replayOf: prior.run_id };
  }
  throw new AppError('CONFLICT', 'Idempotency-Key is in use by a concurrent request; retry');
}
