import type { Queryable } from '../db/pool.js';
import { rowOf } from '../db/typed.js';
import { ROUTE_FAILED, ROUTE_GATE, ROUTE_SERVED } from './queries.js';

/**
 * Per-route circuit breakers (issue 29, item 3), kept in PostgreSQL so every worker process sees the same
 * circuit, as the webhook deliverer's destinations do (events/fairDelivery.ts). `threshold` consecutive
 * failures that say the provider is unwell (5xx, 429 past its retries, connection refused) open a
 * route's circuit for `openSeconds`, doubling with each further failure up to `maxOpenSeconds`; runs skip
 * it meanwhile. When the time lapses one run at a time probes it (half-open); a success closes it.
 */
export interface RouteCircuitSettings {
  threshold: number;
  openSeconds: number;
  maxOpenSeconds: number;
}

export type RouteGate = { state: 'closed'; failures: number } | { state: 'probe' } | { state: 'open'; until: Date };

export class RouteCircuits {
  constructor(private readonly db: Queryable, readonly settings: RouteCircuitSettings) {}

  /** Whether a run may try the route now; a 'probe' is this caller's alone until it reports back. */
  async gate(route: string): Promise<RouteGate> {
    const row = (await rowOf<{ state: 'closed' | 'probe' | 'open'; open_until: Date | null; failures: number | null }>(this.db, ROUTE_GATE, [route, this.settings.openSeconds]))!;
    if (row.state === 'open') return { state: 'open', until: row.open_until! };
    if (row.state === 'probe') return { state: 'probe' };
    return { state: 'closed', failures: row.failures ?? 0 };
  }

  /** Counts a failure that says the provider is unwell; returns when the circuit is open until, if it is. */
  async failed(route: string): Promise<Date | null> {
    const s = this.settings;
    const row = await rowOf<{ open_until: Date | null }>(this.db, ROUTE_FAILED, [route, s.threshold, s.openSeconds, s.maxOpenSeconds]);
    return row?.open_until ?? null;
  }

  /** The route served a run: its circuit closes (no statement when nothing was counted against it). */
  async served(route: string, gate: RouteGate): Promise<void> {
    if (gate.state === 'closed' && gate.failures === 0) return;
    await this.db.query(ROUTE_SERVED, [route]);
  }
}
