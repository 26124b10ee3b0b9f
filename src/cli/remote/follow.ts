import type { RunHandle } from '../../../packages/sdk/src/runHandle.js';
import type { RunStatus } from '../../../packages/sdk/src/types-runs.js';
import { ProgressLine, type RunSnapshot } from './progress.js';

/**
 * Waits for a run to end while showing its progress on stderr (stdout stays for the result, so
 * `--json` output can be piped). The first Ctrl-C cancels the run and keeps waiting for it to settle
 * (nothing is left running unseen); a second one leaves at once.
 */
export async function follow<R extends RunSnapshot & { status: RunStatus }>(
  handle: RunHandle<R>,
  label: string,
  onRecord?: (run: R, line: ProgressLine) => void,
): Promise<R> {
  const line = new ProgressLine(process.stderr, label);
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    line.note(`canceling ${handle.runId} (Ctrl-C again to leave without waiting)`);
    handle.cancel().catch((err: Error) => line.note(`cancel failed: ${err.message}`));
  };
  process.on('SIGINT', onSigint);
  try {
    return (await handle.wait({
      onProgress: (run) => {
        onRecord?.(run, line);
        line.update(run);
      },
    }));
  } finally {
    process.off('SIGINT', onSigint);
    line.stop();
  }
}

/** Microcredits for people: the exact integer, grouped in thousands. */
export function credits(micro: number): string {
  return `${micro.toLocaleString('en-US')} microcredits`;
}

export function durationOf(run: { startedAt?: string | null; finishedAt?: string | null; createdAt?: string }): string {
  const start = run.startedAt ?? run.createdAt;
  if (!start || !run.finishedAt) return '';
  return `${((Date.parse(run.finishedAt) - Date.parse(start)) / 1000).toFixed(2)}s`;
}
