import fs from 'node:fs';
import pg from 'pg';
import { sleep } from './stats.js';

// What PostgreSQL did for one bench database over a window: counters read before and after (per-run
// accounting), and a sampler of pg_stat_activity and /proc (where the time went while it ran).

/** Counters of one database (pg_stat_database, pg_stat_user_tables) and of the cluster (WAL, pg_stat_statements). */
export interface PgCounters {
  xacts: number;
  rollbacks: number;
  /** Rows inserted + updated + deleted in the database's tables (pg_stat_user_tables), by table. */
  rowsWritten: Record<string, number>;
  /** WAL position (cluster-wide: other databases' writes count too unless the cluster is private). */
  walLsn: string;
  walRecords: number;
  walSyncs: number;
  /** Time spent in WAL fsyncs, ms (only with track_wal_io_timing on). */
  walSyncMs?: number;
  /** Statements executed in the database, when pg_stat_statements is loaded (else undefined). */
  statements?: number;
  byStatement?: Record<string, number>;
}

export interface PgDelta {
  xacts: number;
  rollbacks: number;
  rowsWritten: number;
  rowsByTable: Record<string, number>;
  walBytes: number;
  walRecords: number;
  walSyncs: number;
  walSyncMs?: number;
  statements?: number;
  byStatement?: Record<string, number>;
}

/** A connection to the bench's admin database that reads counters for database `dbName`. */
export async function pgProbe(adminUrl: string, dbUrl: string) {
  const admin = new pg.Client({ connectionString: adminUrl, application_name: 'bench:probe' });
  await admin.connect();
  const inDb = new pg.Client({ connectionString: dbUrl, application_name: 'bench:probe' });
  await inDb.connect();
  const dbName = (await inDb.query('SELECT current_database() AS d')).rows[0].d as string;
  // pg_stat_statements exists only when the server preloads it (shared_preload_libraries); the bench does
  // not restart anyone's server to get it.
  // The view goes into the bench's own database (it shows every database's statements), never the admin one.
  let statements = false;
  try {
    const preloaded = (await inDb.query(`SELECT current_setting('shared_preload_libraries') ~ 'pg_stat_statements' AS on`)).rows[0].on === true;
    if (preloaded) {
      await inDb.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await inDb.query('SELECT 1 FROM pg_stat_statements LIMIT 1');
      statements = true;
    }
  } catch {
    statements = false;
  }

  async function read(): Promise<PgCounters> {
    await admin.query('SELECT pg_stat_clear_snapshot()');
    await inDb.query('SELECT pg_stat_clear_snapshot()');
    const d = (await admin.query(`SELECT xact_commit::float8 AS c, xact_rollback::float8 AS r FROM pg_stat_database WHERE datname = $1`, [dbName])).rows[0];
    const t = await inDb.query(`SELECT schemaname || '.' || relname AS t, (n_tup_ins + n_tup_upd + n_tup_del)::float8 AS n FROM pg_stat_user_tables`);
    const w = (await admin.query(`SELECT pg_current_wal_lsn()::text AS lsn, wal_records::float8 AS rec, wal_sync::float8 AS syncs, wal_sync_time AS sync_ms, current_setting('track_wal_io_timing') = 'on' AS timed FROM pg_stat_wal`)).rows[0];
    const out: PgCounters = {
      xacts: Number(d.c), rollbacks: Number(d.r),
      rowsWritten: Object.fromEntries(t.rows.map((r) => [r.t, Number(r.n)])),
      walLsn: w.lsn, walRecords: Number(w.rec), walSyncs: Number(w.syncs), walSyncMs: w.timed ? Number(w.sync_ms) : undefined,
    };
    if (statements) {
      // Statements the service sent: not the foreign-key checks PostgreSQL runs itself (counted as top-level
      // ones when they fire at the end of a statement), nor this probe's own.
      const s = await inDb.query(`SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS q, sum(calls)::float8 AS n FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
        WHERE d.datname = $1 AND query NOT LIKE 'SELECT % FROM ONLY %FOR KEY SHARE OF x' AND query NOT LIKE '%pg_stat_clear_snapshot%' AND query NOT LIKE '%n_tup_ins + n_tup_upd%' AND query NOT LIKE '%FROM pg_stat_activity%' GROUP BY 1`, [dbName]);
      out.byStatement = Object.fromEntries(s.rows.map((r) => [r.q, Number(r.n)]));
      out.statements = s.rows.reduce((a, r) => a + Number(r.n), 0);
    }
    return out;
  }

  async function lsnDiff(a: string, b: string): Promise<number> {
    return Number((await admin.query(`SELECT pg_wal_lsn_diff($2::pg_lsn, $1::pg_lsn)::float8 AS n`, [a, b])).rows[0].n);
  }

  async function delta(a: PgCounters, b: PgCounters): Promise<PgDelta> {
    const rowsByTable: Record<string, number> = {};
    for (const [k, v] of Object.entries(b.rowsWritten)) {
      const n = v - (a.rowsWritten[k] ?? 0);
      if (n > 0) rowsByTable[k] = n;
    }
    let byStatement: Record<string, number> | undefined;
    if (a.byStatement && b.byStatement) {
      byStatement = {};
      for (const [k, v] of Object.entries(b.byStatement)) {
        const n = v - (a.byStatement[k] ?? 0);
        if (n > 0) byStatement[k] = n;
      }
    }
    return {
      xacts: b.xacts - a.xacts, rollbacks: b.rollbacks - a.rollbacks,
      rowsWritten: Object.values(rowsByTable).reduce((x, y) => x + y, 0), rowsByTable,
      walBytes: await lsnDiff(a.walLsn, b.walLsn), walRecords: b.walRecords - a.walRecords, walSyncs: b.walSyncs - a.walSyncs,
      walSyncMs: a.walSyncMs !== undefined && b.walSyncMs !== undefined ? b.walSyncMs - a.walSyncMs : undefined,
      statements: a.statements !== undefined && b.statements !== undefined ? b.statements - a.statements : undefined,
      byStatement,
    };
  }

  /**
   * Samples every `everyMs` until stopped: the wait events of the database's active backends, how many
   * waited on a lock, its connections by application, and the CPU time of `pids` and of its backends.
   */
  function sample(pids: Record<string, number>, everyMs = 100) {
    let running = true;
    let samples = 0;
    const waits: Record<string, number> = {};
    let active = 0;
    let lockWaits = 0;
    const peakConnections: Record<string, number> = {};
    const backendTicks = new Map<number, number>();
    const t0 = performance.now();
    const roleOf = new Map(Object.entries(pids).map(([k, pid]) => [pid, k]));
    const start = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, ticksOf(pid)]));
    const loop = (async () => {
      while (running) {
        const r = await inDb.query(`SELECT pid, application_name AS app, state, wait_event_type AS wt, wait_event AS w FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND application_name <> 'bench:probe'`, [dbName]).catch(() => undefined);
        if (r) {
          samples++;
          const perApp: Record<string, number> = {};
          for (const b of r.rows) {
            // atelier:PID (main pool), atelier:PID:queue (pg-boss), atelier:PID:listen: PID as its role's name.
            const m = /^atelier:(\d+)(?::(\w+))?$/.exec(String(b.app));
            const app = m ? `${roleOf.get(Number(m[1])) ?? (Number(m[1]) === process.pid ? 'bench' : 'other')}:${m[2] ?? 'pool'}` : String(b.app || 'unnamed');
            perApp[app] = (perApp[app] ?? 0) + 1;
            if (!backendTicks.has(b.pid)) backendTicks.set(b.pid, 0);
            if (b.state !== 'active') continue;
            active++;
            const key = b.wt ? `${b.wt}:${b.w}` : 'CPU';
            waits[key] = (waits[key] ?? 0) + 1;
            if (b.wt === 'Lock') lockWaits++;
          }
          for (const [k, n] of Object.entries(perApp)) peakConnections[k] = Math.max(peakConnections[k] ?? 0, n);
          for (const pid of backendTicks.keys()) {
            const t = ticksOf(pid);
            if (t !== undefined) backendTicks.set(pid, t);
          }
        }
        await sleep(everyMs);
      }
    })();
    return {
      async stop() {
        running = false;
        await loop;
        const seconds = (performance.now() - t0) / 1000;
        const cpu: Record<string, number> = {};
        for (const [k, pid] of Object.entries(pids)) {
          const a = start[k];
          const b = ticksOf(pid);
          if (a !== undefined && b !== undefined) cpu[k] = (b - a) / TICKS / seconds;
        }
        // Backends that existed before the window carry CPU from earlier: count only what they used in it.
        cpu.postgres = [...backendTicks.entries()].reduce((s, [pid, t]) => s + t - (backendStart.get(pid) ?? 0), 0) / TICKS / seconds;
        return { seconds, samples, active, lockWaits, waits, peakConnections, cpu };
      },
    };
  }
  // Backends' CPU ticks at the start of every window (sample() calls mark() first).
  const backendStart = new Map<number, number>();
  async function mark(): Promise<void> {
    backendStart.clear();
    const r = await inDb.query(`SELECT pid FROM pg_stat_activity WHERE datname = $1`, [dbName]);
    for (const { pid } of r.rows) backendStart.set(pid, ticksOf(pid) ?? 0);
  }

  return {
    statements,
    read,
    delta,
    async window(pids: Record<string, number>) {
      await mark();
      return sample(pids);
    },
    async close() {
      await admin.end().catch(() => {});
      await inDb.end().catch(() => {});
    },
  };
}

const TICKS = 100; // USER_HZ on Linux

/** utime + stime of a process, in clock ticks (/proc/PID/stat fields 14 and 15). */
export function ticksOf(pid: number): number | undefined {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return undefined;
  }
}

export type Window = Awaited<ReturnType<Awaited<ReturnType<Awaited<ReturnType<typeof pgProbe>>['window']>>['stop']>>;
