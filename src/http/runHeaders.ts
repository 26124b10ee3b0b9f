import { AppError } from '../errors.js';

const MAX_SECONDS = 7 * 86_400;

/** `Cancel-After` header: whole seconds ("90") or a duration ("90s", "5m", "2h", "1h30m"). Pure. */
export function parseCancelAfter(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const v = header.trim();
  let seconds: number;
  if (/^\d+$/.test(v)) seconds = Number(v);
  else {
    const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(v);
    if (!m || v === '') throw new AppError('VALIDATION_ERROR', 'Cancel-After must be seconds or a duration like 90s, 5m, 1h30m', { details: [{ path: 'headers.cancel-after', message: 'is not a duration' }] });
    seconds = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  }
  if (seconds < 1 || seconds > MAX_SECONDS) {
    throw new AppError('VALIDATION_ERROR', `Cancel-After must be from 1 second to ${MAX_SECONDS / 86_400} days`, { details: [{ path: 'headers.cancel-after', message: 'is out of range' }] });
  }
  return seconds;
}

/** `Prefer: wait=N` (1..60): how long a create may hold the request for the run to end. */
export function parsePreferWait(header: string | undefined): number | undefined {
  if (!header) return undefined;
  const m = /(?:^|[,;\s])wait=(\d+)/i.exec(header);
  if (!m) return undefined;
  const n = Number(m[1]);
  if (n < 1 || n > 60) throw new AppError('VALIDATION_ERROR', 'Prefer: wait must be from 1 to 60 seconds', { details: [{ path: 'headers.prefer', message: 'wait is out of range' }] });
  return n;
}
