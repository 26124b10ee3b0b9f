/**
 * What the human commands show while a run goes on. On a terminal: one line redrawn in place with a
 * spinner, the status, the progress and the elapsed time. Elsewhere (a pipe, a log file, CI): one
 * plain line per change, so logs stay readable and nothing is printed twice.
 */

export interface RunSnapshot {
  status: string;
  progress?: number | null;
  progressMessage?: string | null;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** `RUNNING 40% drawing frames` — the part of the line that changes only when the run does. */
export function describeSnapshot(s: RunSnapshot): string {
  const pct = typeof s.progress === 'number' ? ` ${Math.round(s.progress * 100)}%` : '';
  const msg = s.progressMessage ? ` ${s.progressMessage}` : '';
  return `${s.status}${pct}${msg}`;
}

export function formatElapsed(ms: number): string {
  const s = ms / 1000;
  return s < 60 ? `${s.toFixed(1)}s` : `${Math.floor(s / 60)}m${String(Math.floor(s % 60)).padStart(2, '0')}s`;
}

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(chunk: string): unknown;
}

export class ProgressLine {
  private frame = 0;
  private last = '';
  private timer: NodeJS.Timeout | undefined;
  private current: RunSnapshot | undefined;
  private readonly started: number;

  constructor(private readonly out: ProgressStream, private readonly label: string, private readonly now: () => number = Date.now) {
    this.started = now();
  }

  /** Called with every polled record; on a terminal the spinner also ticks between polls. */
  update(s: RunSnapshot): void {
    this.current = s;
    if (this.out.isTTY) {
      this.draw();
      this.timer ??= setInterval(() => this.draw(), 100).unref();
      return;
    }
    const text = describeSnapshot(s);
    if (text !== this.last) this.out.write(`${this.label} ${text}\n`);
    this.last = text;
  }

  /** Prints a line of its own (a node status change) without breaking the spinner line. */
  note(line: string): void {
    if (this.out.isTTY) this.out.write('\r\x1b[2K');
    this.out.write(line + '\n');
    if (this.out.isTTY && this.current) this.draw();
  }

  /** Clears the spinner line; what follows is the final report. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.out.isTTY) this.out.write('\r\x1b[2K');
  }

  private draw(): void {
    if (!this.current) return;
    const spin = FRAMES[this.frame++ % FRAMES.length];
    // Elapsed time before the message, so a narrow terminal cuts the message rather than the clock.
    let line = `${spin} ${formatElapsed(this.now() - this.started).padStart(6)} ${this.label} ${describeSnapshot(this.current)}`;
    const width = this.out.columns || 80;
    if (line.length > width - 1) line = line.slice(0, width - 2) + '…';
    this.out.write(`\r\x1b[2K${line}`);
  }
}
