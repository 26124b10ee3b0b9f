import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createDatabase } from '../../test/helpers/db.js';
import { startEmbedded } from '../../src/db/embedded.js';

/** The PostgreSQL the bench runs on, found the way `npm test` finds one (scripts/test.mjs). */
export interface BenchPostgres {
  adminUrl: string;
  where: string;
  /** A new empty database; drop() removes it. */
  fresh(): Promise<{ url: string; drop(): Promise<void> }>;
  stop(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

export async function findPostgres(): Promise<BenchPostgres> {
  let adminUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  let where = 'DATABASE_URL';
  let stop = async () => {};
  if (!adminUrl && (await answers('postgres://postgres@127.0.0.1:5432/postgres'))) {
    adminUrl = 'postgres://postgres@127.0.0.1:5432/postgres';
    where = 'the PostgreSQL server on 127.0.0.1:5432';
  }
  if (!adminUrl) {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-pg-'));
    fs.chmodSync(tmp, 0o755);
    const embedded = await startEmbedded(tmp);
    adminUrl = embedded.url;
    where = 'an embedded PostgreSQL';
    stop = async () => {
      await embedded.stop();
      fs.rmSync(tmp, { recursive: true, force: true });
    };
  }
  const admin = adminUrl;
  return {
    adminUrl: admin,
    where,
    stop,
    fresh: () => createDatabase(admin, 'atelier_bench_'),
  };
}
