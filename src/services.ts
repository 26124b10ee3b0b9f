import type { Config } from './config.js';
import type { Db } from './db/pool.js';
import type { AccountService } from './accounts/service.js';
import type { KeyService } from './keys/service.js';
import type { CreditService } from './billing/service.js';
import type { SubscriptionService } from './billing/subscriptions.js';
import type { Catalog } from './catalog/catalog.js';
import type { LegacyService } from './catalog/legacy.js';
import type { EngineRegistry } from './engines/registry.js';
import type { Notifier } from './db/notifier.js';
import type { JobQueue } from './queue/queue.js';
import type { FileService } from './files/service.js';
import type { ModelRunService } from './runs/service.js';
import type { WebhookSecretService } from './events/secrets.js';
import type { DeliveryService } from './events/deliveries.js';
import type { WorkflowService } from './workflows/service.js';
import type { WorkflowRunService } from './workflows/runService.js';
import type { ServerStreams } from './keys/serverStreams.js';
import type { BatchService } from './runs/batches.js';
import type { QueuePositions } from './queue/positions.js';

/**
 * The service objects a process needs, built once over one database (src/app/services.ts builds them).
 * Routes, web pages, CLI and MCP all take these; only the type lives here, below them.
 */
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
  notifier: Notifier;
  queue: JobQueue;
  files: FileService;
  nodeRuns: ModelRunService;
  webhookSecrets: WebhookSecretService;
  deliveries: DeliveryService;
  workflows: WorkflowService;
  workflowRuns: WorkflowRunService;
  /** This server's open event streams (their keys' caps and checks), ended at shutdown. */
  streams: ServerStreams;
  /** Batch runs: N inputs of one model in one call (issue 29). */
  batches: BatchService;
  /** Queued runs' positions, from a snapshot shared by this process's readers (issue 29). */
  queuePositions: QueuePositions;
  /** Origin written into URLs handed out: PUBLIC_URL, else where this process listens. */
  publicUrl(): string;
  setListenUrl(url: string): void;
  /** True once start-up work (migrations, queue) is done; /readyz reports it. */
  ready(): boolean;
  markReady(): void;
}
