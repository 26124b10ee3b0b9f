import type pg from 'pg';
import { Db, queryPrepared, type Queryable } from './pool.js';

/**
 * Typed reads for queries.ts files: the caller names the row type its SQL answers, so no `any` row leaves
 * the module that owns the SQL. A helper of ours rather than a library (pgtyped, kysely): the SQL stays
 * plain strings and CTE fragments (the hot one-round-trip statements are assembled from them), which a
 * query builder would not express, and a code generator would add a build step needing a live database.
 */
export async function rowsOf<R>(db: Queryable, sql: string, values?: unknown[]): Promise<R[]> {
  return (await db.query(sql, values)).rows as R[];
}

/** The first row, or undefined when there is none. */
export async function rowOf<R>(db: Queryable, sql: string, values?: unknown[]): Promise<R | undefined> {
  return (await db.query(sql, values)).rows[0] as R | undefined;
}

/** How many rows the statement touched (an UPDATE or DELETE guarded in SQL). */
export async function countOf(db: Queryable, sql: string, values?: unknown[]): Promise<number> {
  return (await db.query(sql, values)).rowCount ?? 0;
}

// These reads are where a row gets its named type: the metric of untyped `.rows` reads
// (scripts/house/source.mjs untypedRowReads) counts them, as casts, and nothing else should need one.

/**
 * rowsOf for a prepared statement (Db.queryPrepared on a Db, pool.ts queryPrepared on a transaction's
 * client): the same call, its rows named.
 */
export async function preparedRowsOf<R>(on: Db | pg.PoolClient, name: string, sql: string, values: unknown[]): Promise<R[]> {
  return (await (on instanceof Db ? on.queryPrepared(name, sql, values) : queryPrepared(on, name, sql, values))).rows as R[];
}

/** rowOf for a prepared statement: the first row, or undefined when there is none. */
export async function preparedRowOf<R>(on: Db | pg.PoolClient, name: string, sql: string, values: unknown[]): Promise<R | undefined> {
  return (await (on instanceof Db ? on.queryPrepared(name, sql, values) : queryPrepared(on, name, sql, values))).rows[0] as R | undefined;
}
