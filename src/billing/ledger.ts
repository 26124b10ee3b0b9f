import type { Queryable } from '../db/pool.js';
import { AppError, validationError } from '../errors.js';
import * as q from './queries.js';

/**
 * The credit ledger. Every balance change is one ledger row written in the same transaction as the
 * account_balances projection it moves; the projection row is what concurrent reservations lock.
 * All amounts are bigint microcredits. Functions take the caller's transaction so a run's insert and its
 * reservation commit together.
 */
export interface Balance {
  posted: bigint;
  reserved: bigint;
  available: bigint;
}

export type LedgerKind = 'grant' | 'subscription_grant' | 'reserve' | 'capture' | 'release' | 'adjustment';

const MAX_AMOUNT = 10n ** 15n; // a billion credits: far above any real top-up, far below bigint overflow

function positive(name: string, amount: bigint): void {
  if (amount <= 0n || amount > MAX_AMOUNT) throw validationError(name, `must be an integer from 1 to ${MAX_AMOUNT}`);
}

function toBalance(row: { posted: bigint; reserved: bigint }): Balance {
  return { posted: row.posted, reserved: row.reserved, available: row.posted - row.reserved };
}

export async function balanceOf(db: Queryable, accountId: string): Promise<Balance> {
  const row = (await db.query(q.BALANCE, [accountId])).rows[0];
  if (!row) throw new AppError('NOT_FOUND', 'account not found');
  return toBalance(row);
}

export async function grant(
  tx: Queryable,
  accountId: string,
  amount: bigint,
  opts: { kind?: 'grant' | 'subscription_grant'; note?: string } = {},
): Promise<Balance> {
  positive('microcredits', amount);
  const r = await tx.query(q.APPLY_GRANT, [accountId, amount]);
  if (!r.rows[0]) throw new AppError('NOT_FOUND', 'account not found');
  await tx.query(q.INSERT_ENTRY, [accountId, opts.kind ?? 'grant', amount, 0n, null, opts.note ?? null]);
  return toBalance(r.rows[0]);
}

/** Holds `amount` for a run; throws INSUFFICIENT_CREDITS (and writes nothing) when the balance cannot cover it. */
export async function reserve(tx: Queryable, accountId: string, amount: bigint, runId: string): Promise<Balance> {
  if (amount === 0n) return balanceOf(tx, accountId);
  positive('amount', amount);
  const r = await tx.query(q.RESERVE_AND_RECORD, [accountId, amount, runId]);
  if (!r.rows[0]) {
    const b = await balanceOf(tx, accountId);
    throw insufficientCredits(amount, b.available);
  }
  return toBalance(r.rows[0]);
}

/** The refusal of a reservation the available balance cannot cover. */
export function insufficientCredits(amount: bigint, available: bigint): AppError {
  return new AppError('INSUFFICIENT_CREDITS', `this run costs ${amount} microcredits but only ${available} are available`, {
    extra: { requiredMicrocredits: Number(amount), availableMicrocredits: Number(available) },
  });
}

/** Turns a run's hold into a charge. The caller guarantees once-only by settling under a state guard. */
export async function capture(tx: Queryable, accountId: string, amount: bigint, runId: string): Promise<void> {
  if (amount === 0n) return;
  await tx.query(q.APPLY_CAPTURE, [accountId, amount]);
  await tx.query(q.INSERT_ENTRY, [accountId, 'capture', -amount, -amount, runId, null]);
}

/** Returns a run's hold to the available balance (failure, cancel, or the unused part of a workflow). */
export async function release(tx: Queryable, accountId: string, amount: bigint, runId: string, note?: string): Promise<void> {
  if (amount === 0n) return;
  await tx.query(q.APPLY_RELEASE, [accountId, amount]);
  await tx.query(q.INSERT_ENTRY, [accountId, 'release', 0n, -amount, runId, note ?? null]);
}

export interface LedgerRow {
  id: string;
  kind: LedgerKind;
  postedDelta: bigint;
  reservedDelta: bigint;
  runId: string | null;
  note: string | null;
  createdAt: Date;
}

export async function ledgerPage(db: Queryable, accountId: string, beforeId: bigint | null, limit: number): Promise<LedgerRow[]> {
  const r = await db.query(q.LEDGER_PAGE, [accountId, beforeId, limit]);
  return r.rows.map((row) => ({
    id: String(row.id),
    kind: row.kind,
    postedDelta: row.posted_delta,
    reservedDelta: row.reserved_delta,
    runId: row.run_id,
    note: row.note,
    createdAt: row.created_at,
  }));
}
