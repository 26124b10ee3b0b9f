import type { Db } from '../db/pool.js';
import { generateSecret } from './signing.js';

/** Each account's webhook signing secret; after a rotation the previous one keeps signing for 24 h. */
export class WebhookSecretService {
  constructor(private readonly db: Db) {}

  async current(accountId: string): Promise<string> {
    await this.db.query(`INSERT INTO webhook_secrets (account_id, secret) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [accountId, generateSecret()]);
    return (await this.db.query(`SELECT secret FROM webhook_secrets WHERE account_id = $1`, [accountId])).rows[0].secret;
  }

  async rotate(accountId: string): Promise<string> {
    await this.current(accountId);
    const r = await this.db.query(
      `UPDATE webhook_secrets SET previous_secret = secret, previous_expires_at = now() + interval '24 hours', secret = $2, rotated_at = now()
       WHERE account_id = $1 RETURNING secret`,
      [accountId, generateSecret()],
    );
    return r.rows[0].secret;
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
