import type { Logger } from 'pino';
import type { SubscriptionService } from './subscriptions.js';

/** Grants subscription periods as they start. Safe to run in every process: grants are exactly-once in SQL. */
export class SubscriptionScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(private readonly subscriptions: SubscriptionService, private readonly log: Logger, private readonly intervalMs = 60_000) {}

  start(): void {
    const tick = () => {
      this.running = this.subscriptions.grantDue().then(
        (n) => { if (n > 0) this.log.info({ grants: n }, 'subscription credits granted'); },
        (err) => this.log.warn({ err }, 'subscription grant pass failed; will retry'),
      );
    };
    tick();
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
