import client from 'prom-client';
import type { Queryable } from '../db/pool.js';
import { ACTIVE_RUNS, PENDING_DELIVERIES, type ActiveRunsRow } from './queries.js';
import { rowOf, rowsOf } from '../db/typed.js';

import type { RunKind, RunObserver } from '../runs/observer.js';

export type { RunKind };
export type DeliveryOutcome = 'delivered' | 'retry' | 'failed';

const KINDS: RunKind[] = ['node', 'workflow', 'workflow_node'];

/**
 * One process's Prometheus metrics, in a registry of its own (tests start several servers in one process,
 * and the global registry refuses a metric registered twice). Counters and histograms are fed by the
 * parts of this process; the run and delivery gauges are read from PostgreSQL at scrape time, so they
 * describe the whole deployment, not this process (aggregate them with max, not sum).
 */
export class Metrics implements RunObserver {
  readonly registry = new client.Registry();
  private readonly httpRequests: client.Counter<'method' | 'route' | 'status'>;
  private readonly httpSeconds: client.Histogram<'method' | 'route' | 'status'>;
  private readonly runSeconds: client.Histogram<'kind' | 'model' | 'status'>;
  private readonly webhookAttempts: client.Counter<'outcome'>;
  private snapshot: Promise<{ active: Array<{ kind: RunKind; status: string; n: number }>; pending: number } | undefined> | undefined;

  constructor(private readonly db: Queryable, role: string) {
    this.registry.setDefaultLabels({ role });
    client.collectDefaultMetrics({ register: this.registry, prefix: 'atelier_' });
    const registers = [this.registry];
    this.httpRequests = new client.Counter({
      name: 'atelier_http_requests_total', help: 'HTTP requests answered, by method, route template and status code.',
      labelNames: ['method', 'route', 'status'], registers,
    });
    this.httpSeconds = new client.Histogram({
      name: 'atelier_http_request_duration_seconds', help: 'Time to answer an HTTP request, by method, route template and status code.',
      labelNames: ['method', 'route', 'status'], registers,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    });
    this.runSeconds = new client.Histogram({
      name: 'atelier_run_duration_seconds', help: 'From a run (or workflow node) starting to it settling, by model and final status; observed by the process that settled it.',
      labelNames: ['kind', 'model', 'status'], registers,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
    });
    this.webhookAttempts = new client.Counter({
      name: 'atelier_webhook_attempts_total', help: 'Webhook delivery attempts made by this process, by outcome (delivered, retry scheduled, failed for good).',
      labelNames: ['outcome'], registers,
    });
    const self = this;
    new client.Gauge({
      name: 'atelier_queue_depth', help: 'Runs waiting for a worker (QUEUED), by kind; read from the database at scrape time.',
      labelNames: ['kind'], registers,
      async collect() {
        const s = await self.read();
        for (const kind of KINDS) this.set({ kind }, s ? sum(s.active, kind, 'QUEUED') : 0);
      },
    });
    new client.Gauge({
      name: 'atelier_runs_running', help: 'Runs being executed (RUNNING), by kind; read from the database at scrape time.',
      labelNames: ['kind'], registers,
      async collect() {
        const s = await self.read();
        for (const kind of KINDS) this.set({ kind }, s ? sum(s.active, kind, 'RUNNING') : 0);
      },
    });
    new client.Gauge({
      name: 'atelier_webhook_deliveries_pending', help: 'Webhook deliveries not yet delivered or given up; read from the database at scrape time.',
      registers,
      async collect() {
        this.set((await self.read())?.pending ?? 0);
      },
    });
  }

  /** One pair of cheap queries (partial indexes) per scrape, shared by the gauges; a database outage leaves them at 0. */
  private read() {
    this.snapshot ??= (async () => {
      try {
        const [active, pending] = await Promise.all([rowsOf<ActiveRunsRow>(this.db, ACTIVE_RUNS), rowOf<{ n: number }>(this.db, PENDING_DELIVERIES)]);
        return { active, pending: pending?.n ?? 0 };
      } catch {
        return undefined;
      }
    })();
    const s = this.snapshot;
    setTimeout(() => {
      if (this.snapshot === s) this.snapshot = undefined;
    }, 500).unref();
    return s;
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpSeconds.observe(labels, seconds);
  }

  observeRun(kind: RunKind, model: string, status: string, startedAt: Date | null, finishedAt: Date | null): void {
    if (!startedAt || !finishedAt) return;
    this.runSeconds.observe({ kind, model, status }, Math.max(0, (finishedAt.getTime() - startedAt.getTime()) / 1000));
  }

  countDelivery(outcome: DeliveryOutcome): void {
    this.webhookAttempts.inc({ outcome });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

function sum(rows: Array<{ kind: string; status: string; n: number }>, kind: string, status: string): number {
  return rows.filter((r) => r.kind === kind && r.status === status).reduce((a, r) => a + r.n, 0);
}
