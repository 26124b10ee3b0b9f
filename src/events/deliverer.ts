import type { Logger } from 'pino';
import { retryOnConnectionLoss, type Db } from '../db/pool.js';
import { CHANNELS, type Notifier } from '../db/notifier.js';
import { newId } from '../ids.js';
import { guardedFetch, OutboundError } from '../net/urlGuard.js';
import { deliveryHeaders } from './signing.js';
import { delayBeforeAttempt } from './retrySchedule.js';
import type { WebhookSecretService } from './secrets.js';
import { CLAIM_FAIR, CLAIM_LOCK, FINISH_ATTEMPT, OPEN_CIRCUIT, RECORD_ATTEMPT, RECORD_DELIVERED_AND_HAND_ON, RECORD_FAILURE, RECORD_SUCCESS, RELEASE_CLAIMS, EVENT_TRACE_PARENT, type ClaimedDeliveryRow, type EventTraceRow } from './queries.js';
import { tracingEnabled, webhookAttempt } from '../tracing/tracing.js';
import { countsAsFailure, destinationOf, openSecondsAfter } from './fairDelivery.js';
import { rowOf, rowsOf } from '../db/typed.js';

/** Sends one HTTP POST; resolves with the status code, rejects on network errors and time-outs. */
export type PostFn = (url: string, headers: Record<string, string>, body: string, timeoutMs: number) => Promise<number>;

export interface DelivererOptions {
  schedule: number[];
  concurrency: number;
  /** Attempts in flight to one destination (an account's scheme://host:port) across all deliverers (fairDelivery.ts); default 8. */
  perDestination?: number;
  timeoutMs: number;
  /** How long a claimed attempt is ours before another deliverer may take it (a crashed deliverer). */
  claimSeconds: number;
  post: PostFn;
  /** Told of every attempt's outcome (metrics). */
  onAttempt?: (outcome: 'delivered' | 'retry' | 'failed') => void;
}

/**
 * The webhook deliverer role: sends due deliveries signed with the account's secret(s), any 2xx is
 * delivered, 410 stops, anything else (or a time-out) retries on the schedule. Woken by NOTIFY when an
 * event is committed, and by a timer for retries that come due.
 */
export class Deliverer {
  readonly id = newId('dlv');
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();
  private lastClaim = 0;
  private soon: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly notifier: Notifier,
    private readonly secrets: WebhookSecretService,
    private readonly log: Logger,
    private readonly opts: DelivererOptions,
  ) {}

  async start(): Promise<void> {
    this.unsubscribe = await this.notifier.subscribe(CHANNELS.deliveries, () => this.kick());
    this.timer = setInterval(() => this.kick(), 500);
    this.timer.unref();
    this.kick();
  }

  kick(): void {
    if (this.stopped) return;
    if (this.loop) {
      this.again = true;
      return;
    }
    this.loop = (async () => {
      do {
        this.again = false;
        try {
          while (!this.stopped && (await this.pass()) > 0) { /* keep filling free slots */ }
        } catch (err) {
          this.log.warn({ err }, 'delivery pass failed; will retry');
        }
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.loop = undefined;
    });
  }

  /**
   * Claims as many due deliveries as there are free slots and starts them; returns how many it claimed.
   * Each attempt frees its slot when it ends and kicks another pass, so a slow receiver holds only its
   * own slots (at most `perDestination`), never the pool.
   */
  async pass(): Promise<number> {
    const free = this.opts.concurrency - this.inFlight.size;
    // Under load, claims gather a few free slots (a quarter of the pool) rather than one round trip per
    // ended attempt; a slot left free longer than a moment (the rest held by slow receivers) is claimed anyway.
    const few = this.inFlight.size > 0 && free < Math.max(1, Math.floor(this.opts.concurrency / 4)) && performance.now() - this.lastClaim < 100;
    if (free <= 0 || few) {
      if (few) this.soon ??= setTimeout(() => { this.soon = undefined; this.kick(); }, 110);
      return 0;
    }
    this.lastClaim = performance.now();
    const claimed = await this.db.tx(async (tx) => {
      await tx.query(CLAIM_LOCK);
      return rowsOf<ClaimedDeliveryRow>(tx, CLAIM_FAIR, [this.id, free, this.opts.claimSeconds, this.opts.perDestination ?? 8]);
    });
    for (const d of claimed) {
      const p: Promise<void> = this.send(d)
        .catch((err) => this.log.warn({ err, deliveryId: String(d.id) }, 'recording a delivery attempt failed; its claim lapses and it is retried'))
        .finally(() => {
          this.inFlight.delete(p);
          this.kick();
        });
      this.inFlight.add(p);
    }
    return claimed.length;
  }

  /**
   * Sends a claimed delivery, then whatever delivery of the same destination its recording handed on, in
   * this one slot. A delivered attempt hands its slot on only while the pool has another slot free for
   * other destinations' claims (pass), so hand-ons never crowd a destination out; then the destination's
   * backlog drains at its full share without a claim transaction per attempt.
   */
  private async send(first: ClaimedDeliveryRow): Promise<void> {
    for (let d: ClaimedDeliveryRow | undefined = first; d; ) d = await this.attempt(d);
  }

  /** One attempt of a claimed delivery, recorded; returns the delivery handed on to this slot, if any. */
  private async attempt(d: ClaimedDeliveryRow): Promise<ClaimedDeliveryRow | undefined> {
    const body = JSON.stringify(d.payload);
    const secrets = await this.secrets.signingOf(d);
    const headers: Record<string, string> = {
      ...(d.headers ?? {}),
      'content-type': 'application/json',
      'user-agent': 'Atelier-Webhooks/1.0',
      ...deliveryHeaders(secrets, d.event_id, Math.floor(Date.now() / 1000), body),
    };
    // While traces are on, the attempt joins its run's trace (one read of the run's traceparent).
    const run = tracingEnabled() ? await rowOf<EventTraceRow>(this.db, EVENT_TRACE_PARENT, [d.event_id]) : undefined;
    const started = performance.now();
    let status: number | undefined;
    let error: string | undefined;
    let permanent = false;
    try {
      status = await webhookAttempt(run?.trace_parent, { runId: run?.run_id, eventId: d.event_id, eventType: d.payload?.type, attempt: d.attempts, url: d.url }, () => this.opts.post(d.url, headers, body, this.opts.timeoutMs));
    } catch (err) {
      error = (err as Error).message || String(err);
      permanent = err instanceof PermanentDeliveryError;
    }
    const latency = Math.round(performance.now() - started);
    let outcome: 'delivered' | 'pending' | 'failed';
    let delay = 0;
    if (status !== undefined && status >= 200 && status < 300) outcome = 'delivered';
    else if (status === 410) {
      outcome = 'failed';
      error = 'the receiver answered 410 Gone; no more attempts';
    } else {
      error ??= `the receiver answered ${status}`;
      const next = delayBeforeAttempt(this.opts.schedule, d.attempts + 1);
      if (next === undefined) outcome = 'failed';
      else {
        outcome = 'pending';
        delay = next;
      }
    }
    // Recorded again if the connection drops: otherwise a delivered event would be sent once more when the claim lapses.
    const destination: string = d.destination ?? destinationOf(d.account_id, d.url);
    if (outcome === 'delivered') {
      const handOn = !this.stopped && this.inFlight.size < this.opts.concurrency;
      const next = await retryOnConnectionLoss(() => rowOf<ClaimedDeliveryRow>(this.db, RECORD_DELIVERED_AND_HAND_ON,
        [d.id, this.id, d.attempts, status, latency, destination, handOn, this.opts.claimSeconds]));
      this.opts.onAttempt?.('delivered');
      return next;
    }
    await retryOnConnectionLoss(() => this.db.tx(async (tx) => {
      await tx.query(RECORD_ATTEMPT, [d.id, d.attempts, status ?? null, latency, error ?? null]);
      await tx.query(FINISH_ATTEMPT, [d.id, this.id, outcome, delay, status ?? null, error ?? null]);
      // The destination's circuit (fairDelivery.ts): an answer that says the receiver is well closes it.
      if (permanent) return;
      if (!countsAsFailure(status)) await tx.query(RECORD_SUCCESS, [destination]);
      else {
        const failures = (await rowOf<{ failures: number }>(tx, RECORD_FAILURE, [destination]))!.failures;
        const open = openSecondsAfter(failures);
        if (open > 0) await tx.query(OPEN_CIRCUIT, [destination, open]);
      }
    }));
    this.opts.onAttempt?.(outcome === 'pending' ? 'retry' : outcome);
    if (outcome === 'pending' && delay < 1) this.again = true;
    return undefined;
  }

  /**
   * Takes no new deliveries, lets the attempts under way finish (each is bounded by the attempt time-out),
   * then releases any claim it still holds (an attempt whose outcome could not be recorded), so another
   * deliverer retries it now instead of after the claim lapses.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearInterval(this.timer);
    clearTimeout(this.soon);
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
    await this.db.query(RELEASE_CLAIMS, [this.id]).catch(() => {});
  }
}

/**
 * The delivery POST through the outbound URL guard: the receiver's address is resolved and checked again
 * at every attempt (DNS rebinding), no redirects are followed, and a refused address fails for good.
 */
export function guardedPost(allowPrivate: boolean): PostFn {
  return async (url, headers, body, timeoutMs) => {
    try {
      const res = await guardedFetch(url, { allowPrivate, allowHttp: true, method: 'POST', headers, body, timeoutMs, maxBytes: 65_536, maxRedirects: 0 });
      return res.status;
    } catch (err) {
      if (err instanceof OutboundError && err.refused) throw new PermanentDeliveryError(err.message);
      throw err;
    }
  };
}

/** A delivery that can never succeed (the address is refused): no retries. */
export class PermanentDeliveryError extends Error {}
