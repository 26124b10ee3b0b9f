import pg from 'pg';
import { deferNotify, type Queryable } from './pool.js';

type Handler = (payload: string) => void;

/**
 * One LISTEN connection per process, shared by everything that waits on PostgreSQL notifications
 * (job wake-ups, run ends, cancels, events). Reconnects with backoff if the connection drops, and then
 * tells subscribers (`onReconnect`) so they can re-check state they may have missed.
 */
export class Notifier {
  private client: pg.Client | undefined;
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly reconnectHandlers = new Set<() => void>();
  private stopped = false;
  private connecting: Promise<void> | undefined;
  private connections = 0;

  constructor(private readonly url: string) {}

  async start(): Promise<void> {
    await this.connect();
  }

  private connect(): Promise<void> {
    this.connecting ??= (async () => {
      let delay = 100;
      while (!this.stopped) {
        const client = new pg.Client({ connectionString: this.url, application_name: `atelier:${process.pid}:listen` });
        try {
          await client.connect();
          client.on('notification', (n) => {
            for (const h of this.handlers.get(n.channel) ?? []) h(n.payload ?? '');
          });
          client.on('error', () => this.lost(client));
          client.on('end', () => this.lost(client));
          for (const channel of this.handlers.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
          this.client = client;
          this.connections++;
          return;
        } catch {
          await client.end().catch(() => {});
          await new Promise((r) => setTimeout(r, delay));
          delay = Math.min(delay * 2, 5000);
        }
      }
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client || this.stopped) return;
    this.client = undefined;
    client.end().catch(() => {});
    void this.connect().then(() => {
      for (const h of this.reconnectHandlers) h();
    });
  }

  async subscribe(channel: string, handler: Handler): Promise<() => void> {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      await this.client?.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    }
    set.add(handler);
    return () => set!.delete(handler);
  }

  /** True while the LISTEN connection is up (and listening on every subscribed channel). */
  get listening(): boolean {
    return this.client !== undefined && !this.stopped;
  }

  /**
   * Counts the LISTEN connections made so far: a change means notifications may have been missed in
   * between, so whoever trusts a cache on the strength of notifications must drop it.
   */
  get epoch(): number {
    return this.connections;
  }

  onReconnect(handler: () => void): () => void {
    this.reconnectHandlers.add(handler);
    return () => this.reconnectHandlers.delete(handler);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.connecting;
    await this.client?.end().catch(() => {});
    this.client = undefined;
  }
}

/** Channels. A NOTIFY asked for inside a transaction goes out after its commit, so listeners never see uncommitted state. */
export const CHANNELS = {
  jobs: 'atelier_jobs',
  runEnded: 'atelier_run_ended',
  cancel: 'atelier_cancel',
  events: 'atelier_events',
  deliveries: 'atelier_deliveries',
  /** Streamed partial output of running engines, never stored (events/outputDeltas.ts). */
  deltas: 'atelier_deltas',
  /** An API key or its user changed (revoke, edit, delete, active organization): sent by triggers (migration 017). */
  keys: 'atelier_keys',
} as const;

/** Inside Db.tx: sent once the transaction has committed (see Db.tx for why). Elsewhere: sent now. */
export async function notify(tx: Queryable, channel: string, payload = ''): Promise<void> {
  if (deferNotify(tx, channel, payload)) return;
  await tx.query('SELECT pg_notify($1, $2)', [channel, payload]);
}
