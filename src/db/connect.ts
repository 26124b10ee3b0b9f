import type { Config } from '../config.js';
import { startEmbedded } from './embedded.js';
import { Db } from './pool.js';
import { migrate } from './migrate.js';

export interface Database {
  db: Db;
  /** Where the data lives, for the start-up log (never includes a password). */
  location: string;
  close(): Promise<void>;
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'DATABASE_URL';
  }
}

/** Opens the configured database (external or embedded) and brings its schema up to date. */
export async function openDatabase(
  config: Config,
  opts: { log?: (msg: string) => void; poolSize?: number; migrate?: boolean } = {},
): Promise<Database> {
  const log = opts.log ?? (() => {});
  if (config.databaseUrl) {
    const db = new Db(config.databaseUrl, { max: opts.poolSize });
    if (opts.migrate !== false) await migrate(db);
    return { db, location: redact(config.databaseUrl), close: () => db.close() };
  }
  const server = await startEmbedded(config.dataDir, log);
  const db = new Db(server.url, { max: opts.poolSize });
  try {
    if (opts.migrate !== false) await migrate(db);
  } catch (err) {
    await db.close();
    await server.stop();
    throw err;
  }
  return {
    db,
    location: `embedded PostgreSQL in ${config.dataDir}`,
    async close() {
      await db.close();
      await server.stop();
    },
  };
}
