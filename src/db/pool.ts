import pg from 'pg';

// BIGINT (int8) comes back as a string by default; money is BIGINT microcredits, so parse it to bigint
// to keep integer arithmetic exact end to end.
pg.types.setTypeParser(20, (v) => BigInt(v));

/** Anything that runs a query: the pool, or a client inside a transaction. */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<pg.QueryResult<any>>;
}

/** A pool plus the one transaction helper every service uses. */
export class Db {
  readonly pool: pg.Pool;

  constructor(readonly url: string, opts: { max?: number; applicationName?: string } = {}) {
    const connectionString = url;
    this.pool = new pg.Pool({
      connectionString,
      max: opts.max ?? 10,
      application_name: opts.applicationName ?? `atelier:${process.pid}`,
      idleTimeoutMillis: 30_000,
    });
    // An idle client losing its connection (server restart, terminated backend) must not crash the process.
    this.pool.on('error', () => {});
    // Nor may a checked-out client between two queries of a transaction: pg emits 'error' on it with no
    // listener attached (the pool only listens while it is idle). The next query then fails and the
    // broken client is discarded on release.
    this.pool.on('connect', (client) => client.on('error', () => {}));
  }

  query<R extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>(text, values as any[]);
  }

  /** Runs fn inside BEGIN/COMMIT; rolls back on any throw and rethrows. */
  async tx<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** True when the error is PostgreSQL's unique-violation for the named constraint (or any, if omitted). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/**
 * True when the error means the database connection was lost (server restart, terminated backend,
 * network), as opposed to a statement the database refused: the same work may succeed on a new connection.
 */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (typeof e?.code === 'string') {
    // Class 08 (connection exception), admin/crash shutdown, cannot connect now; and socket errors.
    if (e.code.startsWith('08') || ['57P01', '57P02', '57P03', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT'].includes(e.code)) return true;
  }
  return typeof e?.message === 'string' && /Connection terminated|not queryable|Client was closed|connection timeout/i.test(e.message);
}

/**
 * Runs `fn` again (after a short pause) while it fails only because the connection was lost. Only for
 * work guarded in SQL so a repeat is harmless (a commit whose acknowledgement was lost is found done).
 */
export async function retryOnConnectionLoss<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts || !isConnectionError(err)) throw err;
      await new Promise((r) => setTimeout(r, 100 * 2 ** i));
    }
  }
}
