import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/connect.js';
import { buildApp } from './http/app.js';
import { createLogger } from './logger.js';
import { createServices, type Services } from './services.js';
import { SubscriptionScheduler } from './billing/scheduler.js';

export const ROLES = ['all', 'api', 'worker', 'deliverer'] as const;
export type Role = (typeof ROLES)[number];

export interface RunningServer {
  url: string | undefined;
  services: Services;
  app: FastifyInstance | undefined;
  stop(): Promise<void>;
}

/**
 * Starts one Atelier process: `all` runs the API, workers and the webhook deliverer together; the other
 * roles run one part each, sharing the database with any number of siblings.
 */
export async function startServer(config: Config, role: Role = 'all', opts: { quiet?: boolean } = {}): Promise<RunningServer> {
  const log = createLogger(opts.quiet ? 'silent' : config.logLevel);
  let database: Database | undefined;
  try {
    database = await openDatabase(config, { log: (m) => log.info(m), poolSize: 20 });
  } catch (err) {
    log.error({ err }, 'could not open the database');
    throw err;
  }
  const services = await createServices(config, database.db);
  let app: FastifyInstance | undefined;
  let url: string | undefined;
  if (role === 'all' || role === 'api') {
    app = await buildApp(services, { logger: log });
    await app.listen({ host: config.host, port: config.port });
    const addr = app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : config.port;
    url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  }
  // Background roles. Subscription grants are exactly-once in SQL, so every worker may run the scheduler.
  const scheduler = role === 'all' || role === 'worker' ? new SubscriptionScheduler(services.subscriptions, log) : undefined;
  scheduler?.start();
  services.markReady();

  log.info({ role, data: database.location }, `data lives in ${database.location}`);
  if (url) log.info(`listening on ${url} (role ${role})`);
  if (!(await services.keys.anyExist())) {
    log.info('no API keys yet: create a user and your first key with `npx atelier quickstart --email you@example.com`');
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await app?.close();
      await scheduler?.stop();
      await database!.close();
    })());
  return { url, services, app, stop };
}
