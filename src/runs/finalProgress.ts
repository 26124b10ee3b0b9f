/**
 * A run's last progress report (fraction 1: "done", "stopped at max_tokens"), held back for a moment instead
 * of written at once: an engine reports it just before it returns, and the settle that follows writes it in
 * its own UPDATE (runs/settle.ts), saving a statement per run. Should the settle not come within `holdMs`
 * (an engine that still works after saying it is done), the report is written as any other, so a client
 * watching a long run sees it. Reports below 1 are written at once, after any held one, in their order.
 */
export class FinalProgress {
  private held: { fraction: number; message: string | null; timer: NodeJS.Timeout } | undefined;

  constructor(
    private readonly write: (fraction: number, message: string | null) => void,
    private readonly holdMs = 250,
  ) {}

  report(fraction: number, message: string | null): void {
    if (fraction < 1) {
      this.flush();
      this.write(fraction, message);
      return;
    }
    if (this.held) clearTimeout(this.held.timer);
    const timer = setTimeout(() => this.flush(), this.holdMs);
    timer.unref();
    this.held = { fraction, message, timer };
  }

  /** The held report, for the settle to write; nothing is written for it afterwards. */
  take(): { fraction: number; message: string | null } | undefined {
    const h = this.held;
    if (!h) return undefined;
    clearTimeout(h.timer);
    this.held = undefined;
    return { fraction: h.fraction, message: h.message };
  }

  private flush(): void {
    const h = this.take();
    if (h) this.write(h.fraction, h.message);
  }
}
