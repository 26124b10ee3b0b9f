import { literalSql, withCommit, type Queryable } from '../db/pool.js';
import { AppError, validationError } from '../errors.js';
import { rowOf, rowsOf } from '../db/typed.js';
import * as q from './queries.js';
import { budgetRefusal } from './budgets.js';

/**
 * The credit ledger (the only writer of account_balances and ledger_entries: ledger/queries.ts). Every balance change is one ledger row written in the same transaction as the
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
/**
 * No balance goes above Number.MAX_SAFE_INTEGER microcredits (~9 billion credits): every microcredit figure
 * in JSON (balances, holds, charges, ledger rows) is then an exact integer for any client. A grant that
 * would pass it is refused. Holds and charges never exceed the balance, so they stay below it too.
 */
export const MAX_BALANCE = BigInt(Number.MAX_SAFE_INTEGER);

function positive(name: string, amount: bigint): void {
  if (amount <= 0n || amount > MAX_AMOUNT) throw validationError(name, `must be an integer from 1 to ${MAX_AMOUNT}`);
}

interface BalanceRow {
  posted: bigint;
  reserved: bigint;
}

function toBalance(row: BalanceRow): Balance {
  return { posted: row.posted, reserved: row.reserved, available: row.posted - row.reserved };
}

interface LedgerEntryRow {
  id: bigint;
  kind: LedgerKind;
  posted_delta: bigint;
  reserved_delta: bigint;
  run_id: string | null;
  note: string | null;
  created_at: Date;
}

export async function balanceOf(db: Queryable, accountId: string): Promise<Balance> {
  const row = await rowOf<BalanceRow>(db, q.BALANCE, [accountId]);
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
  let r = await rowOf<BalanceRow>(tx, q.APPLY_GRANT_SAFE, [accountId, amount]);
  if (!r) {
    const b = await balanceOf(tx, accountId); // NOT_FOUND for an unknown account
    const room = MAX_BALANCE - b.posted;
    // A subscription's monthly grant is not refused outright (it runs unattended): it fills the balance up to the limit.
    if (opts.kind === 'subscription_grant' && room > 0n) {
      amount = room;
      r = await rowOf<BalanceRow>(tx, q.APPLY_GRANT_SAFE, [accountId, amount]);
    } else if (opts.kind === 'subscription_grant') {
      return b;
    } else {
      throw new AppError('VALIDATION_ERROR', `this grant would put the balance above ${MAX_BALANCE} microcredits (the largest integer a JSON number carries exactly); at most ${room > 0n ? room : 0n} more can be granted`, {
        details: [{ path: 'microcredits', message: `would put the balance above ${MAX_BALANCE}` }],
      });
    }
  }
  await tx.query(q.INSERT_ENTRY, [accountId, opts.kind ?? 'grant', amount, 0n, null, opts.note ?? null]);
  return toBalance(r!);
}

/**
 * Holds `amount` for a run; throws BUDGET_EXCEEDED when a spend limit of the account or of `keyId` refuses
 * it, INSUFFICIENT_CREDITS when the balance cannot cover it (and writes nothing either way).
 */
export async function reserve(tx: Queryable, accountId: string, amount: bigint, runId: string, keyId: string | null = null): Promise<Balance> {
  if (amount === 0n) return balanceOf(tx, accountId);
  positive('amount', amount);
  const r = await rowOf<BalanceRow>(tx, q.HOLD_AND_RECORD, [accountId, amount, runId, null, keyId]);
  if (!r) throw await refusalOf(tx, accountId, keyId, amount);
  return toBalance(r);
}

/** Why a hold of `amount` found no row: a spend limit, or else the balance (NOT_FOUND for no account). */
export async function refusalOf(db: Queryable, accountId: string, keyId: string | null, amount: bigint): Promise<AppError> {
  const limit = await budgetRefusal(db, accountId, keyId, amount);
  if (limit) return limit;
  const b = await balanceOf(db, accountId);
  return insufficientCredits(amount, b.available);
}

/** The refusal of a reservation the available balance cannot cover. */
export function insufficientCredits(amount: bigint, available: bigint): AppError {
  return new AppError('INSUFFICIENT_CREDITS', `this run costs ${amount} microcredits but only ${available} are available`, {
    extra: { requiredMicrocredits: Number(amount), availableMicrocredits: Number(available) },
  });
}

/**
 * How a settle's ledger statement is sent. `atCommit`: with the transaction's COMMIT (Db.tx, withCommit), so
 * the account's balance row, which every create of the account locks too, is held only for that statement
 * and the commit; for a caller that reads nothing the statement writes later in its transaction.
 */
export interface SettleSend {
  atCommit?: boolean;
}

/** Turns a run's hold into a charge. The caller guarantees once-only by settling under a state guard. */
export async function capture(tx: Queryable, accountId: string, amount: bigint, runId: string, note?: string, send: SettleSend = {}): Promise<void> {
  if (amount === 0n) return;
  await settle(tx, [accountId, amount, amount, runId, note ?? null, 'capture'], send);
}

/** Returns a run's hold to the available balance (failure, cancel, or the unused part of a workflow). */
export async function release(tx: Queryable, accountId: string, amount: bigint, runId: string, note?: string, send: SettleSend = {}): Promise<void> {
  if (amount === 0n) return;
  await settle(tx, [accountId, amount, 0n, runId, note ?? null, 'release'], send);
}

async function settle(tx: Queryable, values: [string, bigint, bigint, string, string | null, string], send: SettleSend): Promise<void> {
  if (send.atCommit && withCommit(tx, literalSql(q.SETTLE_AND_RECORD, values))) return;
  await tx.query(q.SETTLE_AND_RECORD, values);
}

/** A new account's zero balance row, in the caller's transaction (accounts/service.ts). */
export async function openBalance(tx: Queryable, accountId: string): Promise<void> {
  await tx.query(q.OPEN_BALANCE, [accountId]);
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
  const r = await rowsOf<LedgerEntryRow>(db, q.LEDGER_PAGE, [accountId, beforeId, limit]);
  return r.map((row) => ({
    id: String(row.id),
    kind: row.kind,
    postedDelta: row.posted_delta,
    reservedDelta: row.reserved_delta,
    runId: row.run_id,
    note: row.note,
    createdAt: row.created_at,
  }));
}

/**
 * Adds `amount` to a run's hold with a note (a workflow node priced at its actual input), checked against
 * the balance and the spend limits of the account and of the key the run was created with: undefined when
 * reserved, else the refusal (BUDGET_EXCEEDED or INSUFFICIENT_CREDITS), and then nothing is written.
 */
export async function reserveMoreOrRefusal(tx: Queryable, accountId: string, amount: bigint, runId: string, note: string): Promise<AppError | undefined> {
  // No upper bound here (unlike a grant): an amount no balance can cover is simply refused below.
  if (amount <= 0n) throw validationError('amount', 'must be positive');
  const r = await rowOf<BalanceRow>(tx, q.HOLD_AND_RECORD, [accountId, amount, runId, note, null]);
  if (r) return undefined;
  const key = await rowOf<{ key_id: string | null }>(tx, q.RUN_KEY, [runId]);
  return refusalOf(tx, accountId, key?.key_id ?? null, amount);
}
