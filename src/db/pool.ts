import { createHash } from 'node:crypto';
import pg from 'pg';

// BIGINT (int8) comes back as a string by default; money is BIGINT microcredits, so parse it to bigint
// to keep integer arithmetic exact end to end.
pg.types.setTypeParser(20, (v) => BigInt(v));

/** Anything that runs a query: the pool, or a client inside a transaction. */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<pg.QueryResult<any>>;
}

// NOTIFYs asked for inside a transaction of Db.tx, sent once it has committed (see Db.tx).
const deferredNotifies = new WeakMap<object, Array<[string, string]>>();

/**
 * Queues a NOTIFY to go out after `q`'s transaction commits, if `q` is a transaction of Db.tx; returns
 * false otherwise (the caller then sends it at once).
 */
export function deferNotify(q: Queryable, channel: string, payload: string): boolean {
  const list = deferredNotifies.get(q);
  if (!list) return false;
  if (!list.some(([c, p]) => c === channel && p === payload)) list.push([channel, payload]);
  return true;
}

// Statements asked to go with a Db.tx transaction's COMMIT (withCommit), in the order asked.
const commitStatements = new WeakMap<object, string[]>();

/**
 * In a transaction of Db.tx: sends `sql` (one statement, its values written in as literals: literalSql)
 * together with the transaction's COMMIT, in the same round trip, and returns true; outside one, false (the
 * caller runs it itself). For the statement that takes a lock other transactions queue for (an account's
 * balance row at a run's settle): sent last, the lock is held for that statement and the commit's WAL
 * flush only, not for the round trips to a busy client between the statement and COMMIT. A failure of it
 * fails the commit (the transaction is rolled back), so nothing after it in the transaction may need its
 * result or its effects.
 */
export function withCommit(q: Queryable, sql: string): boolean {
  const list = commitStatements.get(q);
  if (!list) return false;
  list.push(sql);
  return true;
}

/**
 * One value as the SQL literal of what node-postgres would send for it as a text parameter: quoted, so the
 * literal's type is resolved from its context exactly as a parameter's is (a number too: `-$2::bigint`
 * stays a negation). Strings, finite numbers, bigints and booleans; arrays of those (PostgreSQL's array
 * text); plain objects as JSON; null and undefined as NULL. Undefined for anything else (a Buffer, a Date,
 * a nested array): the caller sends the statement with parameters instead.
 */
function literalOf(v: unknown): string | undefined {
  if (v === null || v === undefined) return 'NULL';
  const text = scalarText(v);
  if (text !== undefined) return pg.escapeLiteral(text);
  if (Array.isArray(v)) {
    const items: string[] = [];
    for (const x of v) {
      if (x === null || x === undefined) items.push('NULL');
      else {
        const item = scalarText(x);
        if (item === undefined) return undefined;
        items.push(`"${item.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
      }
    }
    return pg.escapeLiteral(`{${items.join(',')}}`);
  }
  if (typeof v !== 'object') return undefined;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null ? pg.escapeLiteral(JSON.stringify(v)) : undefined;
}

/** A string, bigint, boolean or finite number as its text; undefined for anything else. A NUL cannot be in a
 * query's text (the protocol ends it there): such a string goes as a parameter. */
function scalarText(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string': return v.includes('\0') ? undefined : v;
    case 'bigint':
    case 'boolean': return String(v);
    case 'number': return Number.isFinite(v) ? String(v) : undefined;
    default: return undefined;
  }
}

/**
 * `sql` with its placeholders ($1 …) replaced by `values` written as SQL literals (literalOf), for the
 * simple query protocol (Db.tx's `first`, withCommit, a transaction's first statement sent with BEGIN).
 * Undefined when a value has no literal here. Throws when a placeholder has no value.
 */
export function tryLiteralSql(sql: string, values: ReadonlyArray<unknown>): string | undefined {
  let ok = true;
  const out = sql.replace(/\$(\d+)/g, (_m, n: string) => {
    const i = Number(n) - 1;
    if (i >= values.length) throw new Error(`no value for $${n}`);
    const lit = literalOf(values[i]);
    if (lit === undefined) ok = false;
    return lit ?? 'NULL';
  });
  return ok ? out : undefined;
}

/** tryLiteralSql for values known to have literals; throws otherwise. */
export function literalSql(sql: string, values: ReadonlyArray<unknown>): string {
  const out = tryLiteralSql(sql, values);
  if (out === undefined) throw new Error('a value has no SQL literal here');
  return out;
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

  /** Whether the database answers a trivial query (the health probes, http/routes/health.ts). */
  async ping(): Promise<boolean> {
    try {
      await this.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  query<R extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>(text, values as any[]);
  }

  /**
   * A hot-path statement as a named prepared statement: each pooled connection parses and plans it once
   * instead of on every call (for the big CTEs of the request path, planning costs more than executing).
   * Only for statements whose result columns are listed, not `*`: a cached plan cannot change its result
   * type when a migration adds a column.
   */
  queryPrepared<R extends pg.QueryResultRow = any>(name: string, text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    return queryPrepared<R>(this.pool, name, text, values);
  }

  /**
   * Runs fn inside BEGIN/COMMIT; rolls back on any throw and rethrows.
   *
   * NOTIFYs asked for inside (db/notifier.ts notify) are sent after COMMIT (sendSoon), rather than inside
   * the transaction: PostgreSQL serialises the commits of all transactions that
   * NOTIFY, across the whole server, including their WAL flush, which capped run creation and settling at a
   * few hundred a second. A transaction that only notifies writes no WAL, so its turn is short. Listeners
   * still hear only of committed work; a process dying between the two statements loses the wake-up, which
   * every listener already covers by polling (pg-boss, the deliverer's timer, waitForEnd's backstop).
   *
   * `first`: a statement sent together with BEGIN, in one round trip, for a hot path whose transaction
   * starts with a lock; `fn` gets its result. It goes by the simple query protocol, so it takes no
   * parameters: values in it must be literals escaped with pg.escapeLiteral.
   */
  async tx<T>(fn: (client: pg.PoolClient, first: pg.QueryResult | undefined) => Promise<T>, opts: { first?: string } = {}): Promise<T> {
    return (await this.txThen(fn, () => undefined, opts)).result;
  }

  /**
   * Db.tx, and a statement `then` makes of its result sent together with COMMIT, in the same round trip,
   * once the commit is done (a hot path whose next step is one statement: a workflow's next node started
   * after its predecessor's settle committed). That statement runs in a transaction of its own, after the
   * COMMIT has returned (so after its WAL flush), and by the simple query protocol: literals only, as
   * `first`. Should the message fail, the commit may or may not have happened: callers only use this for
   * work guarded in SQL, whose recovery already covers a process dying between the two.
   */
  async txThen<T>(fn: (client: pg.PoolClient, first: pg.QueryResult | undefined) => Promise<T>, then: (result: T) => string | undefined, opts: { first?: string } = {}): Promise<{ result: T; then: pg.QueryResult | undefined }> {
    const client = await this.pool.connect();
    const notifies: Array<[string, string]> = [];
    deferredNotifies.set(client, notifies);
    const atCommit: string[] = [];
    commitStatements.set(client, atCommit);
    // BEGIN goes with the transaction's first statement, in its round trip (beginWithFirst), unless `first` is given.
    const begin = opts.first === undefined ? beginWithFirst(client) : undefined;
    try {
      let first: pg.QueryResult | undefined;
      if (opts.first !== undefined) first = ((await client.query(`BEGIN; ${opts.first}`)) as unknown as pg.QueryResult[])[1];
      const result = await fn(client, first);
      commitStatements.delete(client);
      const after = then(result);
      let answer: pg.QueryResult | undefined;
      // Nothing sent yet (a transaction that only deferred statements, or none): BEGIN goes with them.
      const opened = begin ? begin.opened() : true;
      const commit = [...(opened ? [] : ['BEGIN']), ...atCommit, 'COMMIT'].join('; ');
      const skip = opened ? 0 : 1;
      if (after === undefined) {
        if (opened || atCommit.length) await client.query(commit);
      } else answer = ((await client.query(`${commit}; ${after}`)) as unknown as pg.QueryResult[])[skip + atCommit.length + 1];
      deferredNotifies.delete(client);
      if (notifies.length) this.sendSoon(notifies);
      return { result, then: answer };
    } catch (err) {
      deferredNotifies.delete(client);
      commitStatements.delete(client);
      if (!begin || begin.opened()) await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * For a statement that committed on its own (autocommit, no Db.tx): its NOTIFY goes out the same way as
   * a transaction's, batched with the others of this turn.
   */
  notifyAfterCommit(channel: string, payload = ''): void {
    this.sendSoon([[channel, payload]]);
  }

  private outgoing: Array<[string, string]> = [];
  private sending: Promise<void> | undefined;

  /**
   * Sends committed transactions' NOTIFYs in one statement per event-loop turn, whatever number of
   * transactions committed meanwhile (identical ones once), off every request's own path.
   */
  private sendSoon(notifies: Array<[string, string]>): void {
    for (const n of notifies) if (!this.outgoing.some(([c, p]) => c === n[0] && p === n[1])) this.outgoing.push(n);
    if (this.sending) return;
    this.sending = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      while (this.outgoing.length) {
        const batch = this.outgoing;
        this.outgoing = [];
        await this.pool.query('SELECT pg_notify(c, p) FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(c, p, i) ORDER BY i',
          [batch.map((n) => n[0]), batch.map((n) => n[1])]).catch(() => {});
      }
    }).finally(() => {
      this.sending = undefined;
    });
  }

  async close(): Promise<void> {
    await this.sending;
    await this.pool.end();
  }
}

/**
 * Sends BEGIN with the first statement a transaction's client is asked to run, in one round trip by the
 * simple query protocol, its values written as literals (tryLiteralSql): a transaction saves a round trip
 * (on a busy process each one waits its turn in the event loop while the transaction holds its locks). A
 * statement that cannot go that way (a prepared one, a value with no literal, a text of several
 * statements) gets a BEGIN of its own first, as before. The client's query method is its own again as
 * soon as BEGIN has gone. `opened()`: whether BEGIN was sent (it also stops waiting for a first statement).
 */
function beginWithFirst(client: pg.PoolClient): { opened(): boolean } {
  let sent = false;
  let waiting = true;
  const own = client.query as unknown as (this: pg.PoolClient, ...a: unknown[]) => Promise<unknown>;
  const restore = () => {
    if (!waiting) return;
    waiting = false;
    delete (client as { query?: unknown }).query;
    if ((client.query as unknown) !== own) client.query = own as unknown as typeof client.query;
  };
  client.query = function (...args: unknown[]) {
    restore();
    sent = true;
    const [text, values] = args;
    const literal = typeof text === 'string' && !text.includes(';') && args.length <= 2 && (values === undefined || Array.isArray(values))
      ? (values === undefined ? text : tryLiteralSql(text, values as unknown[]))
      : undefined;
    if (literal !== undefined) return (own.call(client, `BEGIN; ${literal}`) as Promise<pg.QueryResult[]>).then((r) => r[1]);
    return own.call(client, 'BEGIN').then(() => own.apply(client, args));
  } as unknown as typeof client.query;
  return {
    opened() {
      restore();
      return sent;
    },
  };
}

// A connection refuses one name for two texts: a text built at run time gets a name of its own.
const preparedNames = new Map<string, string>();

/** Db.queryPrepared for a client of Db.tx (a statement on a transaction's hot path), or any pool. */
export function queryPrepared<R extends pg.QueryResultRow = any>(on: pg.Pool | pg.PoolClient, name: string, text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
  let named = preparedNames.get(text);
  if (!named) {
    named = `${name}_${createHash('sha1').update(text).digest('hex').slice(0, 10)}`;
    preparedNames.set(text, named);
  }
  return on.query<R>({ name: named, text, values: values as any[] });
}

/** True when the error is PostgreSQL's unique-violation for the named constraint (or any, if omitted). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/** True when the error is PostgreSQL's check-violation for the named constraint. */
export function isCheckViolation(err: unknown, constraint: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23514' && e.constraint === constraint;
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
