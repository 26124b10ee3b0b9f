import type { Config } from './config.js';
import type { Db } from './db/pool.js';
import { AccountService } from './accounts/service.js';
import { KeyService } from './keys/service.js';
import { CreditService } from './billing/service.js';

/** The service objects a process needs, built once over one database. Routes, CLI and MCP all use these. */
export interface Services {
  config: Config;
  db: Db;
  accounts: AccountService;
  keys: KeyService;
  credits: CreditService;
  /** True once start-up work (migrations, queue) is done; /readyz reports it. */
  ready(): boolean;
  markReady(): void;
}

export function createServices(config: Config, db: Db): Services {
  let ready = false;
  return {
    config,
    db,
    accounts: new AccountService(db),
    keys: new KeyService(db),
    credits: new CreditService(db),
    ready: () => ready,
    markReady: () => {
      ready = true;
    },
  };
}
