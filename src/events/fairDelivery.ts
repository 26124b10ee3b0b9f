/**
 * Fair webhook delivery: no receiver can hold more than its share of the deliverer. The pure parts; its
 * SQL (CLAIM_FAIR, the circuit's statements, RECORD_DELIVERED_AND_HAND_ON) is in queries.ts.
 *
 * - A destination is one account's origin (the account and scheme://host:port of the webhook URL): tenants
 *   sharing a receiver host (an automation platform, a company gateway) never share a circuit, a probe or
 *   a share, so one tenant's failing path cannot hold back another's deliveries (issue 26, finding 2).
 * - Per destination at most `perDestination` attempts are in flight across every deliverer process;
 *   claims take the oldest due delivery of each destination in turn (round-robin by rank), so one
 *   account's backlog never sits in front of another's deliveries.
 * - A circuit per destination: after CIRCUIT_THRESHOLD consecutive failures (time-outs, network errors,
 *   5xx, 429) it opens for a back-off that doubles with each further failure (5 s … 10 min); its
 *   deliveries wait without spending attempts. When it lapses one probe at a time goes out; a success
 *   closes it.
 * - The deliverer keeps a pool of attempts running and claims more as each ends, instead of waiting for
 *   a whole batch: a slow attempt holds one slot, never the others.
 */

export const CIRCUIT_THRESHOLD = 5;
const BASE_OPEN_SECONDS = 5;
const MAX_OPEN_SECONDS = 600;

/** The origin (scheme://host:port) of a webhook URL, or the URL itself when it has none. Pure. */
export function originOf(url: string): string {
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]+/.exec(url);
  return m ? m[0] : url;
}

/**
 * The destination an account's deliveries to a URL share: the account and the URL's origin; the same
 * expression as the generated column webhook_deliveries.destination (migration 026). Pure.
 */
export function destinationOf(accountId: string, url: string): string {
  return `${accountId} ${originOf(url)}`;
}

/** Seconds the circuit stays open after `failures` consecutive failures (0: closed). Pure. */
export function openSecondsAfter(failures: number): number {
  if (failures < CIRCUIT_THRESHOLD) return 0;
  return Math.min(MAX_OPEN_SECONDS, BASE_OPEN_SECONDS * 2 ** Math.min(20, failures - CIRCUIT_THRESHOLD));
}

/** Whether an attempt's outcome says the receiver is unwell (counts toward the circuit). Pure. */
export function countsAsFailure(status: number | undefined): boolean {
  return status === undefined || status >= 500 || status === 429;
}
