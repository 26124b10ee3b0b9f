import type { KeyScope } from './scopes.js';
import { CHANNELS, type Notifier } from '../db/notifier.js';

/** What a request needs to know about its key, as an API process caches it. */
export interface KeyRecord {
  id: string;
  userId: string;
  email: string;
  accountId: string;
  isOrganization: boolean;
  /** SHA-256 of the key, compared in constant time with the presented key's. */
  keyHash: Buffer;
  perMinute: number;
  perDay: number;
  /** Epoch ms; checked against the clock on every request. */
  expiresAtMs: number | null;
  /** Role and model allow-list (keys/scopes.ts). */
  scope: KeyScope;
}

export interface KeyCacheOptions {
  maxEntries?: number;
  /**
   * A backstop only: an entry older than this is looked up again even if no notification said it changed
   * (a LISTEN connection that died without an error). Invalidation itself is by notification.
   */
  maxAgeMs?: number;
}

interface Entry {
  record: KeyRecord;
  at: number;
}

/**
 * Key records by key hash, per process. Trusted only while this process LISTENs on `atelier_keys` (the
 * triggers of migration 017 send a notification when a key or its user changes, whoever changes it):
 * - a notification drops the entries of that key or user, so a revoked key is refused everywhere as soon
 *   as the notification arrives (milliseconds);
 * - a lookup that was under way when a notification arrived is not cached (its answer may predate it);
 * - while the LISTEN connection is down nothing is cached or read from the cache, and after it comes back
 *   (notifications may have been missed) the whole cache is dropped.
 * Unknown and revoked keys are never cached: each of their requests is looked up.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<KeyRecord | undefined>>();
  /** Bumped by every invalidation: a lookup started under an older generation does not fill the cache. */
  private generation = 0;
  private epoch = -1;
  private subscribed = false;
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;
  readonly stats = { hits: 0, misses: 0, invalidations: 0 };

  constructor(
    private readonly load: (hash: Buffer) => Promise<KeyRecord | undefined>,
    private readonly notifier: Notifier | undefined,
    opts: KeyCacheOptions = {},
  ) {
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.maxAgeMs = opts.maxAgeMs ?? 60_000;
    if (notifier) {
      // Registered before the notifier connects (services are built first), so the LISTEN is part of its connect.
      void notifier.subscribe(CHANNELS.keys, (payload) => this.invalidate(payload)).then(() => {
        this.subscribed = true;
      }, () => {});
    }
  }

  /** True when cached records may be used: notifications about them are being received. */
  get active(): boolean {
    return this.subscribed && this.notifier !== undefined && this.notifier.listening;
  }

  /** The key's record: at once from the cache on a hit (no promise on the hottest path), else looked up. */
  get(hash: Buffer): KeyRecord | Promise<KeyRecord | undefined> {
    if (!this.active) return this.load(hash);
    if (this.notifier!.epoch !== this.epoch) {
      this.clear();
      this.epoch = this.notifier!.epoch;
    }
    const id = hash.toString('base64');
    const hit = this.entries.get(id);
    if (hit && Date.now() - hit.at < this.maxAgeMs) {
      this.stats.hits++;
      return hit.record;
    }
    this.stats.misses++;
    // Concurrent first requests with one key share a single lookup.
    let pending = this.loading.get(id);
    if (!pending) {
      const generation = this.generation;
      pending = this.load(hash).then((record) => {
        if (record && generation === this.generation && this.active) this.put(id, record);
        return record;
      }).finally(() => {
        if (this.loading.get(id) === pending) this.loading.delete(id);
      });
      this.loading.set(id, pending);
    }
    return pending;
  }

  /** `key:ID` drops that key, `user:ID` every key of that user, anything else everything. */
  invalidate(payload: string): void {
    this.generation++;
    this.stats.invalidations++;
    this.loading.clear();
    const [kind, id] = [payload.slice(0, payload.indexOf(':')), payload.slice(payload.indexOf(':') + 1)];
    if (kind !== 'key' && kind !== 'user') {
      this.entries.clear();
      return;
    }
    for (const [k, e] of this.entries) {
      if (kind === 'key' ? e.record.id === id : e.record.userId === id) this.entries.delete(k);
    }
  }

  clear(): void {
    this.generation++;
    this.loading.clear();
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private put(id: string, record: KeyRecord): void {
    this.entries.delete(id);
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: the first entry is the one filled longest ago.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(id, { record, at: Date.now() });
  }
}
