import { loadConfig, type Config } from '../config.js';
import { openDatabase, type Database } from '../db/connect.js';
import { createServices, type Services } from '../services.js';
import type { Db } from '../db/pool.js';

/** Opens the database only for commands that need it, and closes it (stopping an embedded server it started). */
export class CliContext {
  readonly config: Config = loadConfig();
  private database: Database | undefined;
  private services_: Services | undefined;

  async services(): Promise<Services> {
    if (!this.services_) {
      this.database ??= await openDatabase(this.config, { poolSize: 3 });
      this.services_ = await createServices(this.config, this.database.db);
    }
    return this.services_;
  }

  /** The database alone, for commands that need no services (and so do not load the model catalog). */
  async db(): Promise<Db> {
    this.database ??= await openDatabase(this.config, { poolSize: 3 });
    return this.database.db;
  }

  async close(): Promise<void> {
    await this.database?.close();
  }
}
