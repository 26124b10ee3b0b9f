/** The SQL of keys' run priority ceilings (keys/priority.ts). */

/** The ceiling of a key; no row for an unknown or revoked key. $1 key id. */
export const KEY_MAX_PRIORITY = `SELECT max_priority::int AS max_priority FROM api_keys WHERE id = $1 AND revoked_at IS NULL`;

/** The operator sets a user's key's ceiling, by label. $1 user, $2 label, $3 ceiling. */
export const SET_MAX_PRIORITY = `UPDATE api_keys SET max_priority = $3 WHERE user_id = $1 AND label = $2 AND revoked_at IS NULL
  RETURNING id, label, max_priority::int AS max_priority`;
