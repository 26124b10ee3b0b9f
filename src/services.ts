import type { Config } from './config.js';
import type { Db } from './db/pool.js';
import { AccountService } from './accounts/service.js';
import { KeyService } from './keys/service.js';
import { CreditService } from './billing/service.js';
import { SubscriptionService } from './billing/subscriptions.js';
import type { Catalog } from './catalog/catalog.js';
import { LegacyService } from './catalog/legacy.js';
import { loadCatalog } from './catalog/load.js';
import type { EngineRegistry } from './engines/registry.js';

/** The service objects a process needs, built once over one database. Routes, CLI and MCP all use these. */
export interface Services {
  config: Config;
  db: Db;
  accounts: AccountService;
  keys: KeyService;
  credits: CreditService;
  subscriptions: SubscriptionService;
  catalog: Catalog;
  engines: EngineRegistry;
  legacy: LegacyService;
  /** True once start-up work (migrations, queue) is done; /readyz reports it. */
  ready(): boolean;
  markReady(): void;
}

export async function createServices(config: Config, db: Db): Promise<Services> {
  let ready = false;
  const { catalog, engines } = await loadCatalog(config);
  return {
    catalog,
    engines,
    legacy: new LegacyService(db, catalog),
    subscriptions: new SubscriptionService(db),
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
