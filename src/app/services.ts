import type { Config } from '../config.js';
import type { Db } from '../db/pool.js';
import type { Services } from '../services.js';
import { AccountService } from '../accounts/service.js';
import { KeyService } from '../keys/service.js';
import { CreditService } from '../billing/service.js';
import { SubscriptionService } from '../billing/subscriptions.js';
import { LegacyService } from '../catalog/legacy.js';
import { loadCatalog } from '../catalog/load.js';
import { Notifier } from '../db/notifier.js';
import { JobQueue } from '../queue/queue.js';
import { FileService } from '../files/service.js';
import { createBlobStore } from '../files/stores.js';
import { ModelRunService } from '../runs/service.js';
import { stampEnqueued } from '../runs/sweeper.js';
import { checkUrl, OutboundError } from '../net/urlGuard.js';
import { fieldError } from '../errors.js';
import { WebhookSecretService } from '../events/secrets.js';
import { DeliveryService } from '../events/deliveries.js';
import { WorkflowService } from '../workflows/service.js';
import { WorkflowRunService } from '../workflows/runService.js';
import { ServerStreams } from '../keys/serverStreams.js';
import { BatchService } from '../runs/batches.js';
import { QueuePositions } from '../queue/positions.js';

/** Builds the service objects of one process over one database: the composition root's first step. */
export async function createServices(config: Config, db: Db, opts: { supervise?: boolean } = {}): Promise<Services> {
  let ready = false;
  let listenUrl = `http://${config.host}:${config.port}`;
  const publicUrl = () => config.publicUrl ?? listenUrl;
  const { catalog, engines } = await loadCatalog(config);
  const notifier = new Notifier(db.url);
  const queue = new JobQueue(db.url, notifier, { supervise: opts.supervise ?? false, accountConcurrency: config.accountConcurrency, loops: config.workerConcurrency + config.workerIntake });
  queue.db = db;
  queue.stampEnqueued = stampEnqueued;
  const files = new FileService(db, createBlobStore(config), {
    publicUrl, retentionSeconds: config.fileRetentionSeconds, urlTtlSeconds: config.fileUrlTtlSeconds,
    redirect: config.blobStore.redirect, redirectTtlSeconds: config.blobStore.redirectTtlSeconds,
    quotaBytes: config.storage.quotaBytes, uploadsPerMinute: config.storage.uploadsPerMinute,
  });
  // Webhook hosts must resolve to public addresses (checked again at each delivery against DNS rebinding).
  const checkWebhookUrl = async (url: string) => {
    try {
      await checkUrl(url, { allowPrivate: config.allowPrivateUrls, allowHttp: true });
    } catch (err) {
      const message = err instanceof OutboundError ? err.message : `cannot resolve the host of ${url}`;
      throw fieldError('webhook.url', message);
    }
  };
  const nodeRuns = new ModelRunService(db, catalog, queue, notifier, checkWebhookUrl);
  const workflows = new WorkflowService(db, catalog);
  return {
    workflowRuns: new WorkflowRunService(db, catalog, workflows, queue, nodeRuns, checkWebhookUrl),
    notifier,
    queue,
    files,
    streams: new ServerStreams(db, { perKey: config.streamsPerKey, checkMs: config.streamKeyCheckMs }),
    nodeRuns,
    batches: new BatchService(db, catalog, queue, checkWebhookUrl),
    queuePositions: new QueuePositions(db),
    webhookSecrets: new WebhookSecretService(db),
    deliveries: new DeliveryService(db),
    workflows,
    publicUrl,
    setListenUrl: (url) => {
      listenUrl = url;
    },
    catalog,
    engines,
    legacy: new LegacyService(db, catalog),
    subscriptions: new SubscriptionService(db),
    config,
    db,
    accounts: new AccountService(db),
    keys: new KeyService(db, notifier),
    credits: new CreditService(db),
    ready: () => ready,
    markReady: () => {
      ready = true;
    },
  };
}
