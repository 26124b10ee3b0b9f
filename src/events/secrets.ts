import type { Db } from '../db/pool.js';
import { rowOf } from '../db/typed.js';
import * as q from './queries.js';
import { generateSecret } from './signing.js';

/** Each account's webhook signing secret; after a rotation the previous one keeps signing for 24 h. */
export class WebhookSecretService {
  constructor(private readonly db: Db) {}

  async current(accountId: string): Promise<string> {
    await this.db.query(q.ENSURE_SECRET, [accountId, generateSecret()]);
    return (await rowOf<{ secret: string }>(this.db, q.SECRET, [accountId]))!.secret;
  }

  async rotate(accountId: string): Promise<string> {
    await this.current(accountId);
    return (await rowOf<{ secret: string }>(this.db, q.ROTATE_SECRET, [accountId, generateSecret()]))!.secret;
  }

  /**
   * The secrets that sign a claimed delivery, from the columns its claim returned (fairDelivery.ts
   * CLAIMED_COLUMNS): the current one and the previous one within its grace period; an account that has
   * none yet gets one now.
   */
  async signingOf(claimed: { account_id: string; secret: string | null; previous_secret: string | null }): Promise<string[]> {
    if (!claimed.secret) return [await this.current(claimed.account_id)];
    return claimed.previous_secret ? [claimed.secret, claimed.previous_secret] : [claimed.secret];
  }
}
