import { AsyncLocalStorage } from 'node:async_hooks';
import type { RemoteLimits } from '../config.js';

/**
 * Waiting is not working (issue 31). A worker takes at most ATELIER_WORKER_CONCURRENCY jobs at a time:
 * those slots size the CPU work of local engines. A remote run only waits on its provider's answer, so
 * once it is claimed and its engine call is about to start it gives its slot back (releaseSlot) and the
 * worker takes the next job; the remote calls themselves are bounded here instead, by a cap on what one
 * worker holds (ATELIER_REMOTE_INFLIGHT) and a permit count per provider (ATELIER_PROVIDER_CONCURRENCY,
 * ATELIER_PROVIDER_CONCURRENCY_<ENGINE>). The run keeps its lease, heartbeat, deadline and cancel
 * (execution/leasedTask.ts) whichever lane it is in.
 */

interface Slot {
  release(): void;
}

const slots = new AsyncLocalStorage<Slot>();

/**
 * Runs `work` holding one of the dispatcher's slots. `released` resolves when the work ends or gives the
 * slot back early (a remote call), whichever comes first: the dispatcher's consumer loop waits for it.
 */
export function runInSlot(work: () => Promise<void>): { done: Promise<void>; released: Promise<void> } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const done = slots.run({ release }, work);
  void done.then(release, release);
  return { done, released };
}

/** Gives the current job's slot back (nothing when none is held, e.g. a task run outside the dispatcher). */
export function releaseSlot(): void {
  slots.getStore()?.release();
}

/** A counting semaphore whose waiters leave when their signal aborts (a cancel while waiting). */
export class Permits {
  private active = 0;
  private readonly waiting: Array<{ grant(): void }> = [];

  constructor(readonly limit: number) {}

  get inUse(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves with the function that gives the permit back (call it once). */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    let given = false;
    const free = () => {
      if (given) return;
      given = true;
      const next = this.waiting.shift();
      if (next) next.grant();
      else this.active--;
    };
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve(free);
    }
    return new Promise((resolve, reject) => {
      const w = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(free);
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(w);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(w);
    });
  }
}

/** What the lane holds now, for logs, metrics and the bench. */
export interface RemoteLaneStats {
  /** Remote runs this worker holds (calling or waiting for their provider's permit). */
  held: number;
  peakHeld: number;
  /** Calls under way, by provider. */
  calling: Record<string, number>;
}

/** The per-worker bounds of remote engine calls (see the top of this file). */
export class RemoteLane {
  private readonly total: Permits;
  private readonly providers = new Map<string, Permits>();
  private peak = 0;

  constructor(private readonly limits: RemoteLimits) {
    this.total = new Permits(limits.inflight);
  }

  private provider(id: string): Permits {
    let p = this.providers.get(id);
    if (!p) {
      p = new Permits(this.limits.providers[id] ?? this.limits.perProvider);
      this.providers.set(id, p);
    }
    return p;
  }

  /**
   * Runs one provider call. The worker's cap is taken while still holding the CPU slot, so a worker at
   * its cap stops taking jobs (other workers take them) rather than piling up runs it cannot start; then
   * the slot goes back and the call waits for its provider's permit, which a cancel or deadline ends.
   */
  async run<T>(providerId: string, signal: AbortSignal, call: () => Promise<T>): Promise<T> {
    const freeHeld = await this.total.acquire(signal);
    this.peak = Math.max(this.peak, this.total.inUse);
    try {
      releaseSlot();
      const freeCall = await this.provider(providerId).acquire(signal);
      try {
        return await call();
      } finally {
        freeCall();
      }
    } finally {
      freeHeld();
    }
  }

  /** Room promised to runs taken at their creation that have not reached their call yet (promiseRoom). */
  private promisedTotal = 0;
  private readonly promised = new Map<string, number>();

  /**
   * Room for one call to `providerId` that would start now, waiting for no permit, counting the room already
   * promised: what a run must find to be taken by this process at its creation rather than through the
   * queue (execution/dispatcher.ts takeOwn). Answers the function that gives the promise back (once the
   * run holds its permits, or never reached them), or undefined when there is no room. Without the count,
   * runs created in a burst would all see the room the first has not taken yet.
   */
  promiseRoom(providerId: string): (() => void) | undefined {
    const p = this.provider(providerId);
    const mine = this.promised.get(providerId) ?? 0;
    if (this.total.inUse + this.total.queued + this.promisedTotal >= this.total.limit || p.inUse + p.queued + mine >= p.limit) return undefined;
    this.promisedTotal++;
    this.promised.set(providerId, mine + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.promisedTotal--;
      this.promised.set(providerId, (this.promised.get(providerId) ?? 1) - 1);
    };
  }

  stats(): RemoteLaneStats {
    return {
      held: this.total.inUse,
      peakHeld: this.peak,
      calling: Object.fromEntries([...this.providers].map(([id, p]) => [id, p.inUse])),
    };
  }
}
