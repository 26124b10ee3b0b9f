import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { openDatabase, type Database } from '../db/connect.js';
import { buildApp } from './app.js';
import { createLogger } from '../logger.js';
import type { Services } from '../services.js';
import { createServices } from './services.js';
import { SubscriptionScheduler } from '../billing/scheduler.js';
import { ModelRunExecutor } from '../runs/execution.js';
import { Permits, RemoteLane } from '../execution/remoteLane.js';
import { RouteCircuits } from '../catalog/routeCircuits.js';
import { EngineRunner } from '../execution/engineRunner.js';
import { EnginePools } from '../execution/pools.js';
import { LeasedTaskRunner } from '../execution/leasedTask.js';
import { JobDispatcher, settledWithin } from '../execution/dispatcher.js';
import { WorkflowExecutor } from '../workflows/executor.js';
import { installSystemWorkflows } from '../workflows/system.js';
import { RunSweeper } from '../runs/sweeper.js';
import { newId } from '../ids.js';
import { ownFileResolver } from '../files/ownFiles.js';
import { createMediaFetcher } from '../engines/media.js';
import { closeThreadPools } from '../engines/local/threads.js';
import { closeLlama } from '../engines/local/llm/llamaCpp.js';
import { Deliverer, guardedPost } from '../events/deliverer.js';
import { Metrics } from '../ops/metrics.js';
import { startMetricsListener } from '../ops/metricsHttp.js';
import { startBackgroundModelSmoke } from '../ops/modelSmokeAtStart.js';

export const ROLES = ['all', 'api', 'worker', 'deliverer'] as const;
export type Role = (typeof ROLES)[number];

export interface RunningServer {
  url: string | undefined;
  /** The HTTP routes this process serves (for tests and docs checks). */
  routeTable(): Array<{ method: string; url: string }>;
  services: Services;
  app: FastifyInstance | undefined;
  /** Where the separate metrics listener answers (ATELIER_METRICS_PORT), if any. */
  metricsUrl: string | undefined;
  /** Graceful stop: see the comment inside. Safe to call more than once. */
  stop(): Promise<void>;
}

interface Part {
  /** Stops within about `graceMs` (parts that have nothing to hand back ignore it). */
  stop(graceMs: number): Promise<void>;
}

/**
 * Starts one Atelier process: `all` runs the API, workers and the webhook deliverer together; the other
 * roles run one part each, sharing the database with any number of siblings.
 */
export async function startServer(config: Config, role: Role = 'all', opts: { quiet?: boolean } = {}): Promise<RunningServer> {
  const log = createLogger(opts.quiet ? 'silent' : config.logLevel);
  let database: Database | undefined;
  try {
    database = await openDatabase(config, { log: (m) => log.info(m), poolSize: config.dbPoolSize });
  } catch (err) {
    log.error({ err }, 'could not open the database');
    throw err;
  }
  const working = role === 'all' || role === 'worker';
  const services = await createServices(config, database.db, { supervise: working });
  const metrics = config.metricsEnabled ? new Metrics(database.db, role) : undefined;
  const parts: Part[] = []; // the working parts, stopped together before the queue and the notifier
  await installSystemWorkflows(database.db, services.workflows);
  await services.notifier.start();
  await services.queue.start();

  let enginePools: EnginePools | undefined;
  if (working) {
    // Engines run in supervised child processes (src/execution/), never in this process.
    const limits = config.engineLimits;
    enginePools = new EnginePools(limits, { modelsDir: config.modelsDir, allowPrivateUrls: config.allowPrivateUrls, testEnginesModule: config.testEnginesModule },
      process.env, (msg, data) => log.warn(data, msg));
    void enginePools.warm('text');
    const runner = new EngineRunner(services.catalog, services.engines, services.files, log,
      (accountId, signal) => createMediaFetcher({
        allowPrivate: config.allowPrivateUrls, maxBytes: config.mediaMaxBytes, timeoutMs: config.mediaTimeoutMs, signal,
        resolveOwnFile: ownFileResolver(services.files, accountId, services.publicUrl,
          { publicUrl: config.publicUrl, allowPrivate: config.allowPrivateUrls, ttlSeconds: config.fileUrlTtlSeconds }),
      }), enginePools, limits.crashAttempts, { lane: new RemoteLane(limits.remote), maxOutputBytes: limits.maxOutputBytes }, new Permits(config.workerConcurrency), new RouteCircuits(database.db, config.routeCircuit));
    const tasks = new LeasedTaskRunner(log, { leaseSeconds: config.runLeaseSeconds, tmpRoot: path.join(config.dataDir, 'tmp') });
    const workerId = newId('wrk');
    const executor = new WorkflowExecutor(database.db, services.catalog, runner, services.files, services.queue, log, tasks, workerId, {
      leaseSeconds: config.runLeaseSeconds, metrics,
    });
    const modelRunExecutor = new ModelRunExecutor(database.db, runner, services.files, services.queue, tasks, workerId, { leaseSeconds: config.runLeaseSeconds, metrics, accountConcurrency: config.accountConcurrency });
    const dispatcher = new JobDispatcher(database.db, services.queue, services.notifier, tasks, {
      executeRun: (runId, jobId) => modelRunExecutor.execute(runId, jobId),
      advanceWorkflow: (runId) => executor.advanceAndRun(runId),
      executeNode: (runId, nodeId) => executor.executeNode(runId, nodeId),
      kindOf: (runId) => modelRunExecutor.kindOf(runId),
    }, log, { concurrency: config.workerConcurrency, intake: config.workerIntake });
    await dispatcher.start();
    parts.push(dispatcher);
    // A remote run this process creates, with room on its remote lane, is taken here at once (no queue
    // round trip); ATELIER_TAKE_OWN_RUNS=0 sends every run through the queue.
    if (config.takeOwnRuns) {
      services.nodeRuns.takeOwn = (run, jobId) => {
        const room = runner.promiseRemoteRoom(run.nodeType, run.subModelId);
        return room !== undefined && dispatcher.takeOwn(run.runId, jobId, room);
      };
    }
    const sweeper = new RunSweeper(database.db, services.queue, services.nodeRuns, services.files, log, config.sweepIntervalMs, services.workflowRuns);
    sweeper.start();
    parts.push(sweeper);
    // Subscription grants are exactly-once in SQL, so every worker may run the scheduler.
    const scheduler = new SubscriptionScheduler(services.subscriptions, log);
    scheduler.start();
    parts.push(scheduler);
  }

  if (role === 'all' || role === 'deliverer') {
    const deliverer = new Deliverer(database.db, services.notifier, services.webhookSecrets, log, {
      schedule: config.webhookRetrySchedule,
      concurrency: config.deliveryConcurrency,
      perDestination: config.deliveryPerDestination,
      timeoutMs: config.webhookTimeoutMs,
      claimSeconds: Math.ceil(config.webhookTimeoutMs / 1000) + 15,
      post: guardedPost(config.allowPrivateUrls),
      onAttempt: metrics ? (outcome) => metrics.countDelivery(outcome) : undefined,
    });
    await deliverer.start();
    parts.push(deliverer);
  }

  let app: FastifyInstance | undefined;
  let url: string | undefined;
  const routes: Array<{ method: string; url: string }> = [];
  if (role === 'all' || role === 'api') {
    app = await buildApp(services, { logger: log, onRoute: (r) => routes.push(r), metrics: metrics && { metrics, token: config.metricsToken } });
    await app.listen({ host: config.host, port: config.port });
    const addr = app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : config.port;
    url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    services.setListenUrl(url);
    parts.push({
      // Stop accepting, let requests under way finish (event streams end so clients resume elsewhere),
      // and cut whatever is still open when the grace period is over.
      async stop(graceMs) {
        const closing = app!.close();
        if (!(await settledWithin([closing], graceMs))) app!.server.closeAllConnections();
        await closing;
        // Rate-limit units this process holds on lease go back for the other API processes to use.
        await services.keys.counter.close().catch((err) => log.warn({ err }, 'could not give back rate-limit leases'));
      },
    });
  }
  let metricsListener: Awaited<ReturnType<typeof startMetricsListener>> | undefined;
  if (metrics && config.metricsPort !== undefined) {
    metricsListener = await startMetricsListener(metrics, config.host, config.metricsPort, config.metricsToken);
    parts.push({ stop: () => metricsListener!.close() });
  }
  services.markReady();
  // Availability proven, not guessed: where models run, each available local model runs a tiny input in the background; failures are logged.
  // The check runs in the engine children like any run (issue 26): the service process never loads model code.
  if (config.modelSmokeAtStart && enginePools) {
    const pools = enginePools;
    parts.push(startBackgroundModelSmoke(services.catalog, services.engines, log, Array.isArray(config.modelSmokeAtStart) ? config.modelSmokeAtStart : undefined,
      (engineId, req, ctx) => pools.execute(engineId, req, ctx), path.join(config.dataDir, 'tmp')));
  }

  log.info({ role, data: database.location }, `data lives in ${database.location}`);
  const unavailable = services.catalog.models.filter((m) => !m.deprecated && !services.catalog.availability(m).available).length;
  log.info(`${services.catalog.models.length} models in the catalog, ${unavailable} unavailable on this machine (see GET /v1/models)`);
  if (!(await services.keys.anyExist())) {
    log.info('no API keys yet: create a user and your first key with `npx atelier quickstart --email you@example.com`');
  }
  // Last, so whoever waits for this line sees everything above it.
  if (url) log.info(`listening on ${url} (role ${role})`);
  else log.info(`started (role ${role})`);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // All at once: the API stops accepting and drains, workers stop taking jobs and let running ones
      // finish for up to the grace period (then hand them back to the queue), the deliverer finishes its
      // attempts under way. Only then the queue, the LISTEN connection and the pool close (and the
      // embedded database stops, unless another Atelier process still uses it).
      log.info({ graceMs: config.shutdownGraceMs }, 'stopping');
      await Promise.all(parts.map((part) => part.stop(config.shutdownGraceMs).catch((err) => log.warn({ err }, 'error while stopping'))));
      for (const part of [services.queue, services.notifier]) await part.stop().catch((err) => log.warn({ err }, 'error while stopping'));
      await closeThreadPools();
      await enginePools?.close();
      await closeLlama().catch(() => {});
      await database!.close();
      log.info('stopped');
    })());
  return { url, services, app, stop, routeTable: () => routes, metricsUrl: metricsListener?.url };
}
