import type { Db, Queryable } from '../db/pool.js';
import { countOf } from '../db/typed.js';

// The SQL of catalog/: the retired models' sample run history (catalog/legacy.ts), owned here
// (legacy_runs, legacy_seeded; src/app/tableOwners.json).

/** A stored run of a retired model, as the table holds it. */
export interface LegacyRunRow {
  id: string;
  account_id: string;
  node_type: string;
  status: 'COMPLETED' | 'FAILED';
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  credit_used: string | number;
  created_at: Date;
  finished_at: Date | null;
}

/** Marks `accountId` as seeded; false when it already was (so its history is written once). */
export async function markSeeded(q: Queryable, accountId: string): Promise<boolean> {
  return (await countOf(q, `INSERT INTO legacy_seeded (account_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING account_id`, [accountId])) !== 0;
}

export async function insertLegacyRun(q: Queryable, run: Omit<LegacyRunRow, 'finished_at'> & { finished_at: Date }): Promise<void> {
  await q.query(
    `INSERT INTO legacy_runs (id, account_id, node_type, status, input, output, credit_used, created_at, finished_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [run.id, run.account_id, run.node_type, run.status, run.input, run.output, run.credit_used, run.created_at, run.finished_at],
  );
}

/** How many stored runs `accountId` has per retired model. */
export async function legacyRunCounts(db: Db, accountId: string): Promise<Map<string, number>> {
  const { rows } = await db.query<{ node_type: string; n: number }>(
    `SELECT node_type, count(*)::int AS n FROM legacy_runs WHERE account_id = $1 GROUP BY node_type`, [accountId]);
  return new Map(rows.map((r) => [r.node_type, r.n]));
}

/** Up to `limit` runs of one retired model, newest first, after the cursor position (created_at, id). */
export async function legacyRunsPage(db: Db, accountId: string, nodeType: string, after: [string, string] | [null, null], limit: number): Promise<LegacyRunRow[]> {
  const { rows } = await db.query<LegacyRunRow>(
    `SELECT * FROM legacy_runs WHERE account_id = $1 AND node_type = $2
       AND ($3::timestamptz IS NULL OR (created_at, id) < ($3, $4))
     ORDER BY created_at DESC, id DESC LIMIT $5`,
    [accountId, nodeType, after[0], after[1], limit],
  );
  return rows;
}

// Route circuits (catalog/routeCircuits.ts): one row per route that failed lately, shared by every worker
// (route_circuits; src/app/tableOwners.json). No row means closed.

/**
 * A route's gate, in one statement: 'closed' (no open circuit), 'probe' (its open time lapsed and this
 * caller took the one probe: the circuit stays open $2 more seconds for everyone else), or 'open' with
 * the time it lapses, and the failures counted (null: none). A lapsed circuit whose probe this caller did
 * not get is open: the statement's row is from before a concurrent caller took the probe (the UPDATE,
 * re-checking the row after that caller's commit, matched nothing), so only one caller probes. $1 route, $2 seconds a probe holds the circuit.
 */
export const ROUTE_GATE = `WITH probe AS (
  UPDATE route_circuits SET open_until = now() + make_interval(secs => $2), updated_at = now()
   WHERE route = $1 AND open_until IS NOT NULL AND open_until <= now()
  RETURNING open_until)
SELECT CASE WHEN EXISTS (SELECT 1 FROM probe) THEN 'probe'
            WHEN c.open_until IS NOT NULL THEN 'open' ELSE 'closed' END AS state,
       CASE WHEN c.open_until > now() THEN c.open_until ELSE now() + make_interval(secs => $2) END AS open_until, c.failures
  FROM (SELECT 1) one LEFT JOIN route_circuits c ON c.route = $1`;

/**
 * A failure of route $1 that says the provider is unwell: counted, and once the count reaches $2 the
 * circuit opens for $3 seconds doubled per further failure, at most $4. Returns the count and open time.
 */
export const ROUTE_FAILED = `INSERT INTO route_circuits (route, failures, open_until, updated_at)
  VALUES ($1, 1, CASE WHEN 1 >= $2::int THEN now() + make_interval(secs => $3::int) END, now())
  ON CONFLICT (route) DO UPDATE SET failures = route_circuits.failures + 1, updated_at = now(),
    open_until = CASE WHEN route_circuits.failures + 1 >= $2::int
      THEN now() + make_interval(secs => least($4::int, $3::int * power(2, least(20, route_circuits.failures + 1 - $2::int)))::int)
      ELSE route_circuits.open_until END
  RETURNING failures, open_until`;

/** Route $1 served a run: its circuit closes. */
export const ROUTE_SERVED = `DELETE FROM route_circuits WHERE route = $1`;
