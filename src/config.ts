import path from 'node:path';

/** Every setting the service reads from its environment, parsed once and typed. */
export interface Config {
  /**
   * Run each available local model's smoke input in the background at start and log failures
   * (ATELIER_MODEL_SMOKE_AT_START: 1 = every model, unset or 0 = off, or a comma list of nodeTypes). Off by
   * default: it cost every start minutes of CPU and up to 2.3 GB of engine children (README "Memory").
   */
  modelSmokeAtStart?: boolean | string[];
  dataDir: string;
  /** External PostgreSQL; when absent the embedded server in `dataDir` is used. */
  databaseUrl: string | undefined;
  host: string;
  port: number;
  /** Origin written into URLs the service hands out (file links, docs). */
  publicUrl: string | undefined;
  bodyLimitBytes: number;
  logLevel: string;
  allowPrivateUrls: boolean;
  /** Starter balance that `atelier quickstart` grants, in microcredits. */
  starterMicrocredits: bigint;
  /** Runs one worker process executes at once. */
  workerConcurrency: number;
  /** Job-taking loops beyond the CPU slots (ATELIER_WORKER_INTAKE): they claim remote runs faster; a local run one takes waits for a CPU slot. */
  workerIntake: number;
  /** A process with the API and worker roles takes a remote run it creates at once when its remote lane has room (ATELIER_TAKE_OWN_RUNS, default on). */
  takeOwnRuns: boolean;
  /** How long a worker's claim on a run lasts without a heartbeat before another worker takes it over. */
  runLeaseSeconds: number;
  /** How often the sweeper looks for lapsed leases and deadlines. */
  sweepIntervalMs: number;
  fileRetentionSeconds: number;
  fileUrlTtlSeconds: number;
  /** Folder of operator-provided model files (GGUF for llama_cpp). */
  modelsDir: string;
  /** Seconds between webhook attempts (ATELIER_WEBHOOK_RETRY_SCHEDULE, comma-separated). */
  webhookRetrySchedule: number[];
  webhookTimeoutMs: number;
  deliveryConcurrency: number;
  /**
   * Per-route circuit breakers of routed models (catalog/routeCircuits.ts): failures that open a route's
   * circuit (ATELIER_ROUTE_CIRCUIT_THRESHOLD), seconds it first stays open before one probe
   * (ATELIER_ROUTE_CIRCUIT_OPEN_SECONDS) and the most it stays open as failures go on (…_MAX_OPEN_SECONDS).
   */
  routeCircuit: { threshold: number; openSeconds: number; maxOpenSeconds: number };
  /** Largest media input fetched for a run, and how long fetching it may take. */
  mediaMaxBytes: number;
  mediaTimeoutMs: number;
  /** How long MCP get_run_status and start_run wait for a run to end before answering "still running". */
  mcpRunWaitSeconds: number;
  /** /metrics: served when enabled (ATELIER_METRICS=1) or when a bearer token guards it (ATELIER_METRICS_TOKEN). */
  metricsEnabled: boolean;
  metricsToken: string | undefined;
  /** A separate listener for /metrics (any role, e.g. workers without an API); undefined: none. */
  metricsPort: number | undefined;
  /**
   * Whose X-Forwarded-For to believe for the client address (ATELIER_TRUST_PROXY): comma-separated
   * addresses/CIDRs of the proxies (or `loopback`, `uniquelocal`), `true` for any peer; false: none.
   */
  trustProxy: boolean | string;
  /** How long a stopping process lets running jobs finish before handing them back. */
  shutdownGraceMs: number;
  /** Connections of a `serve` process's main pool (pg-boss adds 4 and LISTEN 1). */
  dbPoolSize: number;
  /** Artifact store: DATA_DIR/files or an S3-compatible bucket (ATELIER_BLOB_STORE, ATELIER_S3_*, ATELIER_FILES_REDIRECT). */
  blobStore: BlobStoreConfig;
  /** Runs or workflow nodes one account may run at once across all workers (0 = no limit). */
  accountConcurrency: number;
  /** Webhook attempts in flight to one destination at once, across all deliverers. */
  deliveryPerDestination: number;
  /** Open SSE streams one API key may hold across all API processes (429 past it). */
  streamsPerKey: number;
  /** How often each API process re-checks the keys of its open streams (revoked or expired ones end). */
  streamKeyCheckMs: number;
  /** Limits of engine child processes (below, executionLimitsFromEnv). */
  engineLimits: ExecutionLimits;
  /** What one account may store, how fast it may upload, and the free space the artifact store leaves alone (src/files/service.ts). */
  storage: StorageLimits;
  /** The API's sockets (src/http/connections.ts): time-outs that end slow or idle connections, and a cap per client address. */
  http: HttpLimits;
  /** Test-only engines and models (ATELIER_TEST_ENGINES_MODULE); never set in production. */
  testEnginesModule: string | undefined;
  /**
   * GET /v1/models/catalog is public, as on the hosted service, unless ATELIER_CATALOG_REQUIRES_KEY=1; its
   * keyless requests are limited per client address (ATELIER_CATALOG_RATE_PER_MINUTE, per API process).
   */
  catalogRequiresKey: boolean;
  catalogRatePerMinute: number;
}

export interface StorageLimits {
  /** Bytes of live files one account may hold (ATELIER_STORAGE_QUOTA_MB; 0 = no quota). */
  quotaBytes: number;
  /** Uploads (files stored outside a run) one account may make per minute (ATELIER_UPLOADS_PER_MINUTE; 0 = no limit). */
  uploadsPerMinute: number;
  /** Free space of the local artifact store's filesystem that is never used for artifacts (ATELIER_DISK_RESERVE_MB; 0 = none). */
  reserveBytes: number;
  /** The largest one upload may be (POST /v1/files, presigned direct uploads; ATELIER_UPLOAD_MAX_MB, default 512). */
  uploadMaxBytes: number;
}

export interface HttpLimits {
  /** A request's headers must arrive within this (ATELIER_HTTP_HEADERS_TIMEOUT_MS). */
  headersTimeoutMs: number;
  /** A whole request (headers and body) must arrive within this (ATELIER_HTTP_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after this (ATELIER_HTTP_KEEP_ALIVE_TIMEOUT_MS). */
  keepAliveTimeoutMs: number;
  /**
   * Open connections one peer address may hold (ATELIER_CONNECTIONS_PER_ADDRESS; 0 = no cap). Default 1024 (a busy client may open hundreds at once; keep the process's descriptor limit well above it),
   * or no cap when ATELIER_TRUST_PROXY is set (every connection then comes from the proxies, which limit clients).
   */
  connectionsPerAddress: number;
}

export class ConfigError extends Error {}

function httpLimitsFrom(env: NodeJS.ProcessEnv, behindProxy: boolean): HttpLimits {
  const headersTimeoutMs = intFrom(env, 'ATELIER_HTTP_HEADERS_TIMEOUT_MS', 20_000, 500, 600_000);
  const requestTimeoutMs = intFrom(env, 'ATELIER_HTTP_REQUEST_TIMEOUT_MS', 300_000, 500, 3_600_000);
  // Node refuses a headers time-out longer than the request's (the request's includes its headers).
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError('ATELIER_HTTP_HEADERS_TIMEOUT_MS must not exceed ATELIER_HTTP_REQUEST_TIMEOUT_MS');
  return {
    headersTimeoutMs, requestTimeoutMs,
    // Longer than the idle time-outs of common load balancers (60 s), so they close first, not us mid-request.
    keepAliveTimeoutMs: intFrom(env, 'ATELIER_HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, 500, 3_600_000),
    connectionsPerAddress: intFrom(env, 'ATELIER_CONNECTIONS_PER_ADDRESS', behindProxy ? 0 : 1024, 0, 1_000_000),
  };
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const starter = env.ATELIER_STARTER_MICROCREDITS ?? '10000000';
  if (!/^\d{1,18}$/.test(starter)) throw new ConfigError('ATELIER_STARTER_MICROCREDITS must be a non-negative integer');
  return {
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    host: env.HOST || '127.0.0.1',
    port: intFrom(env, 'PORT', 8080, 0, 65535),
    publicUrl: env.PUBLIC_URL ? env.PUBLIC_URL.replace(/\/+$/, '') : undefined,
    bodyLimitBytes: intFrom(env, 'ATELIER_BODY_LIMIT', 1024 * 1024, 1024, 512 * 1024 * 1024),
    logLevel: env.LOG_LEVEL || 'info',
    allowPrivateUrls: env.ATELIER_ALLOW_PRIVATE_URLS === '1',
    starterMicrocredits: BigInt(starter),
    workerConcurrency: intFrom(env, 'ATELIER_WORKER_CONCURRENCY', 2, 1, 64),
    workerIntake: intFrom(env, 'ATELIER_WORKER_INTAKE', 0, 0, 64),
    takeOwnRuns: intFrom(env, 'ATELIER_TAKE_OWN_RUNS', 1, 0, 1) === 1,
    runLeaseSeconds: intFrom(env, 'ATELIER_RUN_LEASE_SECONDS', 30, 2, 3600),
    sweepIntervalMs: intFrom(env, 'ATELIER_SWEEP_INTERVAL_MS', 1000, 50, 600_000),
    fileRetentionSeconds: intFrom(env, 'ATELIER_FILE_RETENTION_DAYS', 7, 0, 3650) * 86_400,
    fileUrlTtlSeconds: intFrom(env, 'ATELIER_FILE_URL_TTL_SECONDS', 86_400, 60, 30 * 86_400),
    webhookRetrySchedule: (() => {
      try {
        return parseSchedule(env.ATELIER_WEBHOOK_RETRY_SCHEDULE);
      } catch (err) {
        throw new ConfigError((err as Error).message);
      }
    })(),
    webhookTimeoutMs: intFrom(env, 'ATELIER_WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000),
    routeCircuit: {
      threshold: intFrom(env, 'ATELIER_ROUTE_CIRCUIT_THRESHOLD', 3, 1, 1000),
      openSeconds: intFrom(env, 'ATELIER_ROUTE_CIRCUIT_OPEN_SECONDS', 30, 1, 86_400),
      maxOpenSeconds: intFrom(env, 'ATELIER_ROUTE_CIRCUIT_MAX_OPEN_SECONDS', 600, 1, 86_400),
    },
    deliveryConcurrency: intFrom(env, 'ATELIER_DELIVERY_CONCURRENCY', 16, 1, 256),
    mediaMaxBytes: intFrom(env, 'ATELIER_MEDIA_MAX_BYTES', 100 * 1024 * 1024, 1024, 2 * 1024 * 1024 * 1024),
    mediaTimeoutMs: intFrom(env, 'ATELIER_MEDIA_TIMEOUT_MS', 60_000, 1000, 600_000),
    mcpRunWaitSeconds: intFrom(env, 'ATELIER_MCP_WAIT_SECONDS', 25, 0, 300),
    metricsEnabled: env.ATELIER_METRICS === '1' || Boolean(env.ATELIER_METRICS_TOKEN),
    metricsToken: env.ATELIER_METRICS_TOKEN || undefined,
    metricsPort: env.ATELIER_METRICS_PORT ? intFrom(env, 'ATELIER_METRICS_PORT', 0, 0, 65535) : undefined,
    shutdownGraceMs: intFrom(env, 'ATELIER_SHUTDOWN_GRACE_MS', 20_000, 0, 3_600_000),
    dbPoolSize: intFrom(env, 'ATELIER_DB_POOL_SIZE', 20, 2, 500),
    modelsDir: path.resolve(env.MODELS_DIR || path.join(env.DATA_DIR || './data', 'models')),
    trustProxy: parseTrustProxy(env.ATELIER_TRUST_PROXY),
    blobStore: (() => {
      try {
        return blobStoreConfigFrom(env);
      } catch (err) {
        throw new ConfigError((err as Error).message);
      }
    })(),
    engineLimits: (() => {
      try {
        return executionLimitsFromEnv(env);
      } catch (err) {
        throw new ConfigError((err as Error).message);
      }
    })(),
    // Fair shares between accounts (queue/fairness.ts): runs or nodes one account may run at once; 0 = no limit.
    accountConcurrency: intFrom(env, 'ATELIER_ACCOUNT_CONCURRENCY', 8, 0, 10_000),
    // Webhook attempts in flight to one destination (scheme://host:port) across all deliverers (events/fairDelivery.ts).
    deliveryPerDestination: intFrom(env, 'ATELIER_DELIVERY_PER_DESTINATION', 8, 1, 256),
    // Event streams obey their key (keys/streams.ts): open streams per key, and how often keys are re-checked.
    streamsPerKey: intFrom(env, 'ATELIER_STREAMS_PER_KEY', 25, 1, 10_000),
    streamKeyCheckMs: intFrom(env, 'ATELIER_STREAM_KEY_CHECK_MS', 2000, 50, 60_000),
    catalogRequiresKey: env.ATELIER_CATALOG_REQUIRES_KEY === '1',
    catalogRatePerMinute: intFrom(env, 'ATELIER_CATALOG_RATE_PER_MINUTE', 60, 1, 1_000_000),
    testEnginesModule: env.ATELIER_TEST_ENGINES_MODULE || undefined,
    storage: {
      quotaBytes: intFrom(env, 'ATELIER_STORAGE_QUOTA_MB', 10_240, 0, 100_000_000) * 1024 * 1024,
      uploadsPerMinute: intFrom(env, 'ATELIER_UPLOADS_PER_MINUTE', 30, 0, 1_000_000),
      // Kept free for PostgreSQL (it shares DATA_DIR by default) and the rest of the machine: see docs/deploy.md.
      reserveBytes: intFrom(env, 'ATELIER_DISK_RESERVE_MB', 1024, 0, 100_000_000) * 1024 * 1024,
      // Generous for video: an upload streams to the store, so its size costs disk, never memory.
      uploadMaxBytes: intFrom(env, 'ATELIER_UPLOAD_MAX_MB', 512, 1, 1_000_000) * 1024 * 1024,
    },
    http: httpLimitsFrom(env, parseTrustProxy(env.ATELIER_TRUST_PROXY) !== false),
    modelSmokeAtStart: smokeSetting(env.ATELIER_MODEL_SMOKE_AT_START),
  };
}

function smokeSetting(v: string | undefined): boolean | string[] {
  const t = v?.trim();
  if (!t || t === '0' || t === 'false') return false;
  if (t === '1' || t === 'true') return true;
  return t.split(',').map((s) => s.trim()).filter(Boolean);
}

/**
 * `true`, or a comma-separated list of proxy addresses/CIDRs (proxy-addr's names `loopback`, `linklocal`,
 * `uniquelocal` too); unset, empty, `0` or `false`: trust none. Fastify refuses hop counts (they cannot
 * tell a proxy from a client that sends the header itself), so a number is refused here too.
 */
export function parseTrustProxy(value: string | undefined): boolean | string {
  const v = (value ?? '').trim();
  if (v === '' || v === '0' || v.toLowerCase() === 'false') return false;
  if (v.toLowerCase() === 'true') return true;
  if (/^\d+$/.test(v)) throw new ConfigError('ATELIER_TRUST_PROXY must list the proxies\' addresses or CIDRs (e.g. 10.0.0.0/8), or be true; a hop count is not accepted');
  return v.split(',').map((s) => s.trim()).filter(Boolean).join(',');
}

// The settings below have parsers of their own; they live here so that config.ts imports nothing of ours
// (it sits on the bottom floor of the house, docs/design.md).

/**
 * Delivery retry timing (Standard Webhooks' schedule by default): the delays, in seconds, before each
 * attempt after the first. Pure.
 */
export const DEFAULT_SCHEDULE = [0, 5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400];

export function parseSchedule(raw: string | undefined): number[] {
  if (raw === undefined || raw.trim() === '') return DEFAULT_SCHEDULE;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 50 || parts.some((p) => !/^\d{1,7}(\.\d+)?$/.test(p))) {
    throw new Error('ATELIER_WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds, e.g. 0,5,300');
  }
  return parts.map(Number);
}

/** Which artifact store a process uses, read from its environment (see docs/deploy.md, "Artifact storage"). */
export interface BlobStoreConfig {
  /** ATELIER_BLOB_STORE: `local` (DATA_DIR/files, the default) or `s3`. */
  kind: 'local' | 's3';
  s3: {
    bucket: string;
    /** ATELIER_S3_ENDPOINT: for S3-compatible servers (MinIO, R2, GCS…); undefined: AWS's own endpoint for the region. */
    endpoint: string | undefined;
    region: string;
    /** ATELIER_S3_FORCE_PATH_STYLE=1: `endpoint/bucket/key` instead of `bucket.endpoint/key` (MinIO and most self-hosted servers). */
    forcePathStyle: boolean;
    /** ATELIER_S3_PREFIX: keys start with it (e.g. `atelier/`), so one bucket can hold several deployments. */
    prefix: string;
  } | undefined;
  /**
   * ATELIER_FILES_REDIRECT=presigned: a download by signed URL is answered with a redirect to a short-lived
   * presigned object URL (the bytes then bypass the API). `none` (default): the API streams the bytes.
   */
  redirect: 'none' | 'presigned';
  /** ATELIER_FILES_REDIRECT_TTL_SECONDS: how long a presigned URL stays valid (default 300). */
  redirectTtlSeconds: number;
}

/** Parses the blob-store settings; throws an Error whose message names the setting at fault. Pure. */
export function blobStoreConfigFrom(env: NodeJS.ProcessEnv): BlobStoreConfig {
  const kind = (env.ATELIER_BLOB_STORE || 'local').toLowerCase();
  if (kind !== 'local' && kind !== 's3') throw new Error(`ATELIER_BLOB_STORE must be "local" or "s3", got "${env.ATELIER_BLOB_STORE}"`);
  const redirect = (env.ATELIER_FILES_REDIRECT || 'none').toLowerCase();
  if (redirect !== 'none' && redirect !== 'presigned') throw new Error(`ATELIER_FILES_REDIRECT must be "none" or "presigned", got "${env.ATELIER_FILES_REDIRECT}"`);
  if (redirect === 'presigned' && kind !== 's3') throw new Error('ATELIER_FILES_REDIRECT=presigned needs ATELIER_BLOB_STORE=s3');
  const ttlRaw = env.ATELIER_FILES_REDIRECT_TTL_SECONDS || '300';
  const ttl = Number(ttlRaw);
  if (!Number.isInteger(ttl) || ttl < 10 || ttl > 7 * 86_400) throw new Error(`ATELIER_FILES_REDIRECT_TTL_SECONDS must be an integer from 10 to 604800, got "${ttlRaw}"`);
  let s3: BlobStoreConfig['s3'];
  if (kind === 's3') {
    const bucket = env.ATELIER_S3_BUCKET ?? '';
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new Error(`ATELIER_BLOB_STORE=s3 needs ATELIER_S3_BUCKET, a bucket name (3–63 of a-z 0-9 . -), got "${bucket}"`);
    const endpoint = env.ATELIER_S3_ENDPOINT || undefined;
    if (endpoint) {
      let u: URL | undefined;
      try {
        u = new URL(endpoint);
      } catch {
        u = undefined;
      }
      if (!u || !/^https?:$/.test(u.protocol)) throw new Error(`ATELIER_S3_ENDPOINT must be an http(s) URL, got "${endpoint}"`);
    }
    const prefix = env.ATELIER_S3_PREFIX ?? '';
    if (prefix && !/^[A-Za-z0-9._\-/]{1,200}\/$/.test(prefix)) throw new Error('ATELIER_S3_PREFIX must be letters, digits, . _ - / and end with /');
    s3 = {
      bucket, endpoint,
      region: env.ATELIER_S3_REGION || env.AWS_REGION || 'us-east-1',
      forcePathStyle: env.ATELIER_S3_FORCE_PATH_STYLE === '1' || env.ATELIER_S3_FORCE_PATH_STYLE === 'true',
      prefix,
    };
  }
  return { kind, s3, redirect, redirectTtlSeconds: ttl };
}

/**
 * Limits every engine child runs under, from the environment (README "Engine processes"). Defaults are
 * safe for one laptop: a run's output is at most 64 MiB, a child's JS heap 1 GiB, its resident memory 4 GiB.
 */
export interface ExecutionLimits {
  /** Largest output of one run, text and files together, in bytes (ATELIER_MAX_OUTPUT_BYTES). */
  maxOutputBytes: number;
  /** V8 heap of one engine child, MiB (ATELIER_ENGINE_MEMORY_MB); past it the child dies and the attempt fails. */
  childMemoryMb: number;
  /**
   * Resident memory of one engine child and the programs it started, MiB (ATELIER_ENGINE_RESIDENT_MB; 0 = no
   * cap): native memory (decoded media, onnxruntime, Buffers) is outside the heap limit. Past it the child's
   * group is killed and the run fails ENGINE_OUT_OF_MEMORY, refunded.
   */
  residentMemoryMb: number;
  /** A child whose heap grew past this after a task is replaced before the next (ATELIER_ENGINE_RECYCLE_MB). */
  recycleMemoryMb: number;
  /** Children kept per engine family (ATELIER_ENGINE_CHILDREN). */
  childrenPerFamily: number;
  /** An idle child exits after this long (ATELIER_ENGINE_IDLE_MS); the next run starts a fresh one. */
  idleMs: number;
  /** Attempts a run gets when its engine process dies (ATELIER_ENGINE_CRASH_ATTEMPTS). */
  crashAttempts: number;
  /** Remote (I/O-bound) engines: calls in flight per worker, outside the CPU slots (execution/remoteLane.ts). */
  remote: RemoteLimits;
}

/**
 * How many provider calls one worker process keeps in flight (README "Remote runs"). They wait on the
 * network, so they hold no ATELIER_WORKER_CONCURRENCY slot; these bound them instead.
 */
export interface RemoteLimits {
  /** Remote runs one worker holds at once, waiting for a provider permit included (ATELIER_REMOTE_INFLIGHT). */
  inflight: number;
  /** Calls in flight to one provider (engine id) per worker unless named below (ATELIER_PROVIDER_CONCURRENCY). */
  perProvider: number;
  /** Per-provider overrides by engine id (ATELIER_PROVIDER_CONCURRENCY_FAL=20 → fal: 20). */
  providers: Record<string, number>;
}

function limitInt(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

export function executionLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): ExecutionLimits {
  return {
    maxOutputBytes: limitInt(env, 'ATELIER_MAX_OUTPUT_BYTES', 64 * 1024 * 1024, 1024, 4 * 1024 * 1024 * 1024),
    childMemoryMb: limitInt(env, 'ATELIER_ENGINE_MEMORY_MB', 1024, 64, 65_536),
    residentMemoryMb: limitInt(env, 'ATELIER_ENGINE_RESIDENT_MB', 4096, 0, 1_048_576),
    recycleMemoryMb: limitInt(env, 'ATELIER_ENGINE_RECYCLE_MB', 512, 32, 65_536),
    childrenPerFamily: limitInt(env, 'ATELIER_ENGINE_CHILDREN', 2, 1, 64),
    idleMs: limitInt(env, 'ATELIER_ENGINE_IDLE_MS', 10 * 60_000, 100, 24 * 3_600_000),
    crashAttempts: limitInt(env, 'ATELIER_ENGINE_CRASH_ATTEMPTS', 2, 1, 10),
    remote: remoteLimitsFromEnv(env),
  };
}

function remoteLimitsFromEnv(env: NodeJS.ProcessEnv): RemoteLimits {
  const prefix = 'ATELIER_PROVIDER_CONCURRENCY_';
  const providers: Record<string, number> = {};
  for (const name of Object.keys(env)) {
    if (!name.startsWith(prefix) || name.length === prefix.length) continue;
    providers[name.slice(prefix.length).toLowerCase().replace(/_/g, '-')] = limitInt(env, name, 1, 1, 100_000);
  }
  return {
    inflight: limitInt(env, 'ATELIER_REMOTE_INFLIGHT', 2000, 1, 100_000),
    perProvider: limitInt(env, 'ATELIER_PROVIDER_CONCURRENCY', 256, 1, 100_000),
    providers,
  };
}
