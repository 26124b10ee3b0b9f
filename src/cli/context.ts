import { loadConfig, type Config } from '../config.js';
import type { Database } from '../db/connect.js';
import type { Services } from '../services.js';
import type { Db } from '../db/pool.js';

/**
 * Opens the database only for commands that need it, and closes it (stopping an embedded server it
 * started). The database layer and the services are imported on first use, so commands that only talk
 * to a running server over HTTP start quickly.
 */
/** The embedded database's start-up notes (first-start initialisation, waiting for another process) on stderr. */
const startupNote = (msg: string) => process.stderr.write(`atelier: ${msg}\n`);

export class CliContext {
  readonly config: Config = loadConfig();
  private database: Database | undefined;
  private services_: Services | undefined;

  async services(): Promise<Services> {
    if (!this.services_) {
      const { openDatabase } = await import('../db/connect.js');
      const { createServices } = await import('../app/services.js');
      this.database ??= await openDatabase(this.config, { poolSize: 3, log: startupNote });
      this.services_ = await createServices(this.config, this.database.db);
    }
    return this.services_;
  }

  /** The database alone, for commands that need no services (and so do not load the model catalog). */
  async db(): Promise<Db> {
    if (!this.database) {
      const { openDatabase } = await import('../db/connect.js');
      this.database = await openDatabase(this.config, { poolSize: 3, log: startupNote });
    }
    return this.database.db;
  }

  async close(): Promise<void> {
    await this.database?.close();
  }
}
