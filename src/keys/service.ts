import type { Db } from '../db/pool.js';
import type { Notifier } from '../db/notifier.js';
import { isUniqueViolation } from '../db/pool.js';
import { AppError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import type { User } from '../accounts/service.js';
import { generateKey, hashKey, hashesEqual, looksLikeKey, visiblePrefix } from './keyFormat.js';
import type { WindowState } from './rateWindow.js';
import { KeyCache, type KeyRecord } from './cache.js';
import { RateCounter, type Counted } from './rateCounter.js';
import * as q from './queries.js';
import { FULL_SCOPE, parseScope, type KeyRole, type KeyScope } from './scopes.js';
import { budgetsOf, parseLimits, setLimits, type Budget } from '../ledger/budgets.js';
import { preparedRowOf, rowOf, rowsOf } from '../db/typed.js';

export const MAX_KEYS_PER_ACCOUNT = 10;
export const LIMITS = {
  perMinute: { default: 60, min: 1, max: 10_000 },
  perDay: { default: 1_000, min: 1, max: 100_000 },
} as const;

export type KeyState = 'active' | 'expired' | 'revoked';

export interface ApiKeyInfo {
  id: string;
  label: string;
  prefix: string;
  state: KeyState;
  rateLimitPerMinute: number;
  rateLimitPerDay: number;
  expiresAt: string | null;
  revokedAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  /** full, run-only or read-only (keys/scopes.ts). */
  role: KeyRole;
  /** Allow-lists of models; null: any. */
  nodeTypes: string[] | null;
  categories: string[] | null;
  providers: string[] | null;
  /** The key's spend limits and their current periods' spend (ledger/budgets.ts). */
  budgets: Budget[];
  /** The highest run priority the key may ask for (keys/priority.ts): 0, normal, unless the operator raised it. */
  maxPriority: number;
}

/** What a key may be created or changed with beyond its label and rate limits. */
export interface KeyScopeInput {
  role?: unknown;
  nodeTypes?: unknown;
  categories?: unknown;
  providers?: unknown;
  /** Spend limits in microcredits per period ({ day, month, total }; null removes one). */
  budgets?: unknown;
}

export interface CreatedKey extends ApiKeyInfo {
  /** The full key: returned once, at creation, and stored nowhere. */
  key: string;
}

/** Who a request acts for, and where its rate-limit windows stand. */
export interface Principal {
  keyId: string;
  userId: string;
  email: string;
  accountId: string;
  /** The acting account is the user's active organization rather than the personal account. */
  isOrganization: boolean;
  admitted: boolean;
  minute: WindowState;
  day: WindowState;
  nowMs: number;
  /** The key's role and model allow-list. */
  scope: KeyScope;
}

function iso(d: Date | null | undefined): string | null {
  return d ? d.toISOString() : null;
}

export function keyState(row: { revoked_at: Date | null; expires_at: Date | null }, now = new Date()): KeyState {
  if (row.revoked_at) return 'revoked';
  if (row.expires_at && row.expires_at <= now) return 'expired';
  return 'active';
}

function scopeOf(row: Pick<q.ApiKeyRow, 'role' | 'allow_node_types' | 'allow_categories' | 'allow_providers'>): KeyScope {
  return { role: row.role ?? 'full', nodeTypes: row.allow_node_types ?? null, categories: row.allow_categories ?? null, providers: row.allow_providers ?? null };
}

function toInfo(row: q.ApiKeyRow & { last_used_at?: Date | null }, budgets: Budget[] = []): ApiKeyInfo {
  return {
    id: row.id,
    label: row.label,
    prefix: `gx_${row.prefix}`,
    state: keyState(row),
    rateLimitPerMinute: row.rate_per_minute,
    rateLimitPerDay: row.rate_per_day,
    expiresAt: iso(row.expires_at),
    revokedAt: iso(row.revoked_at),
    createdAt: iso(row.created_at)!,
    lastUsedAt: iso(row.last_used_at),
    ...scopeOf(row),
    budgets: budgets.filter((b) => b.keyId === row.id),
    maxPriority: row.max_priority ?? 0,
  };
}

function checkLimit(name: string, value: number | undefined, range: { default: number; min: number; max: number }): number {
  if (value === undefined) return range.default;
  if (!Number.isInteger(value) || value < range.min || value > range.max) {
    throw validationError(name, `must be an integer from ${range.min} to ${range.max}`);
  }
  return value;
}

function toRecord(row: q.KeyLookupRow): KeyRecord {
  return {
    id: row.id,
    userId: row.user_id,
    email: row.email,
    accountId: row.org_account_id ?? row.user_account_id,
    isOrganization: row.org_account_id !== null,
    keyHash: row.key_hash,
    perMinute: row.rate_per_minute,
    perDay: row.rate_per_day,
    expiresAtMs: row.expires_at ? row.expires_at.getTime() : null,
    scope: row.role ? scopeOf(row) : FULL_SCOPE,
  };
}

export class KeyService {
  /** Key records of this process, trusted while `notifier` listens (keys/cache.ts). */
  readonly cache: KeyCache;
  readonly counter: RateCounter;

  constructor(private readonly db: Db, notifier?: Notifier) {
    this.cache = new KeyCache(async (hash) => {
      const row = await preparedRowOf<q.KeyLookupRow>(this.db, 'atelier_lookup_key', q.LOOKUP_KEY, [hash]);
      return row ? toRecord(row) : undefined;
    }, notifier);
    this.counter = new RateCounter(db);
  }

  async create(
    user: User,
    input: { label: string; expiresAt?: Date; perMinute?: number; perDay?: number } & KeyScopeInput,
  ): Promise<CreatedKey> {
    const scope = { ...FULL_SCOPE, ...parseScope(input) };
    const limits = parseLimits(input.budgets, 'budgets');
    const label = input.label.trim();
    if (label.length < 1 || label.length > 100) throw validationError('label', 'must be 1 to 100 characters');
    if (/[\p{Cc}\p{Cs}]/u.test(label)) throw validationError('label', 'must not contain control characters');
    const perMinute = checkLimit('perMinute', input.perMinute, LIMITS.perMinute);
    const perDay = checkLimit('perDay', input.perDay, LIMITS.perDay);
    if (input.expiresAt !== undefined) {
      if (Number.isNaN(input.expiresAt.getTime())) throw validationError('expiresAt', 'must be an ISO 8601 timestamp');
      if (input.expiresAt.getTime() <= Date.now()) throw validationError('expiresAt', 'must be in the future');
    }
    const key = generateKey();
    try {
      const row = await this.db.tx(async (c) => {
        // Lock the user so two concurrent creates cannot both pass the 10-key check.
        await c.query(q.LOCK_USER, [user.id]);
        const { n } = (await rowOf<{ n: number }>(c, q.COUNT_LIVE_KEYS, [user.id]))!;
        if (n >= MAX_KEYS_PER_ACCOUNT) {
          throw new AppError('CONFLICT', `an account may hold at most ${MAX_KEYS_PER_ACCOUNT} keys; revoke one first`);
        }
        const id = newId('key');
        const r = await rowOf<q.ApiKeyRow>(c, q.INSERT_KEY, [id, user.id, label, visiblePrefix(key), hashKey(key), perMinute, perDay, input.expiresAt ?? null,
          scope.role, scope.nodeTypes, scope.categories, scope.providers]);
        await c.query(q.INSERT_USAGE, [id]);
        await setLimits(c, user.actingAccountId, id, limits);
        return r!;
      });
      return { ...toInfo(row, await budgetsOf(this.db, user.actingAccountId, [row.id])), key };
    } catch (err) {
      if (isUniqueViolation(err, 'api_keys_label_unique')) throw new AppError('CONFLICT', `a key labelled "${label}" already exists`);
      throw err;
    }
  }

  async anyExist(): Promise<boolean> {
    return (await rowOf<{ any: boolean }>(this.db, q.ANY_KEY))!.any;
  }

  async list(user: User): Promise<ApiKeyInfo[]> {
    const rows = await rowsOf<q.KeyInfoRow>(this.db, q.LIST_KEYS, [user.id]);
    const budgets = await budgetsOf(this.db, user.actingAccountId, rows.map((r) => r.id));
    return rows.map((r) => toInfo(r, budgets));
  }

  async revoke(user: User, label: string): Promise<ApiKeyInfo> {
    // A RETURNING statement: no row when it updated none.
    const r = await rowOf<q.ApiKeyRow>(this.db, q.REVOKE_BY_LABEL, [user.id, label]);
    if (!r) throw new AppError('NOT_FOUND', `no unrevoked key labelled "${label}"`);
    // This process at once; the others when the trigger's notification reaches them.
    this.cache.invalidate(`key:${r.id}`);
    return toInfo(r);
  }

  /** Revokes one of the user's keys by id; it stops working at once. 404 for a key that is not the user's or already revoked. */
  async revokeById(user: User, keyId: string): Promise<ApiKeyInfo> {
    const r = await rowOf<q.ApiKeyRow>(this.db, q.REVOKE_BY_ID, [user.id, keyId]);
    if (!r) throw new AppError('NOT_FOUND', 'no such unrevoked key');
    this.cache.invalidate(`key:${keyId}`);
    return toInfo(r);
  }

  /** Changes an unrevoked key's label and limits (spec 2.1: the label is editable at any time). Omitted fields stay. */
  async update(user: User, keyId: string, input: { label?: string; perMinute?: number; perDay?: number } & KeyScopeInput): Promise<ApiKeyInfo> {
    const scope = parseScope(input);
    const limits = parseLimits(input.budgets, 'budgets');
    const label = input.label?.trim();
    if (label !== undefined && (label.length < 1 || label.length > 100)) throw validationError('label', 'must be 1 to 100 characters');
    if (label !== undefined && /[\p{Cc}\p{Cs}]/u.test(label)) throw validationError('label', 'must not contain control characters');
    const perMinute = input.perMinute === undefined ? null : checkLimit('perMinute', input.perMinute, LIMITS.perMinute);
    const perDay = input.perDay === undefined ? null : checkLimit('perDay', input.perDay, LIMITS.perDay);
    try {
      const row = await this.db.tx(async (c) => {
        const r = await rowOf<q.KeyInfoRow>(c, q.UPDATE_KEY, [user.id, keyId, label ?? null, perMinute, perDay, scope.role ?? null,
          scope.nodeTypes ?? null, scope.categories ?? null, scope.providers ?? null,
          scope.nodeTypes !== undefined, scope.categories !== undefined, scope.providers !== undefined]);
        if (!r) throw new AppError('NOT_FOUND', 'no such unrevoked key');
        await setLimits(c, user.actingAccountId, keyId, limits);
        return r;
      });
      this.cache.invalidate(`key:${keyId}`);
      return toInfo(row, await budgetsOf(this.db, user.actingAccountId, [keyId]));
    } catch (err) {
      if (isUniqueViolation(err, 'api_keys_label_unique')) throw new AppError('CONFLICT', `a key labelled "${label}" already exists`);
      throw err;
    }
  }

  /**
   * Resolves a presented key to its principal and counts the request against both windows.
   * Undefined for anything that is not a usable key (malformed, unknown, revoked, expired).
   * The key record comes from this process's cache when nothing changed, and a busy key's request is
   * admitted from this process's lease (keys/rateCounter.ts): then the answer is immediate, with no
   * promise, as most requests of a busy API take it. Otherwise the promise settles after the lookup and the
   * count (one statement shared with the other requests of the moment).
   */
  authenticate(presented: string): Principal | undefined | Promise<Principal | undefined> {
    if (!looksLikeKey(presented)) return undefined;
    const hash = hashKey(presented);
    const record = this.cache.get(hash);
    if (record instanceof Promise) return record.then((r) => this.admit(hash, r));
    return this.admit(hash, record);
  }

  /**
   * Counts one more request of a key already authenticated by this request: each further call of an MCP
   * JSON-RPC batch and each further run of an MCP batch_execute is a request of its own (issue 26: a batch
   * must not multiply the limit). The principal says whether it was admitted and where the windows stand.
   */
  async countMore(p: Principal): Promise<Principal> {
    const counted = await this.counter.count({ id: p.keyId, perMinute: p.minute.limit, perDay: p.day.limit });
    // The key was deleted meanwhile: nothing more is admitted for it.
    if (!counted) return { ...p, admitted: false };
    return { ...p, admitted: counted.admitted, minute: counted.minute, day: counted.day, nowMs: counted.nowMs };
  }

  private admit(hash: Buffer, record: KeyRecord | undefined): Principal | undefined | Promise<Principal | undefined> {
    // The lookup is by hash; the constant-time comparison guards against any collation or cache-key surprise.
    if (!record || !hashesEqual(record.keyHash, hash)) return undefined;
    if (record.expiresAtMs !== null && record.expiresAtMs <= Date.now()) return undefined;
    const counted = this.counter.count(record);
    if (counted instanceof Promise) return counted.then((c) => (c ? principal(record, c) : undefined));
    return principal(record, counted);
  }
}

function principal(record: KeyRecord, counted: Counted): Principal {
  return {
    keyId: record.id,
    userId: record.userId,
    email: record.email,
    accountId: record.accountId,
    isOrganization: record.isOrganization,
    admitted: counted.admitted,
    minute: counted.minute,
    day: counted.day,
    nowMs: counted.nowMs,
    scope: record.scope,
  };
}
