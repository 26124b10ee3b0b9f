import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { startServer, type Role, type RunningServer } from '../../src/app/server.js';
import type { Services } from '../../src/services.js';
import { freshDatabase } from './db.js';
import { blobStoreEnvForTests } from './s3.js';

export interface TestServer {
  url: string;
  databaseUrl: string;
  dataDir: string;
  services: Services;
  /** The separate metrics listener's URL (ATELIER_METRICS_PORT), if one was started. */
  metricsUrl: string | undefined;
  /** The Fastify app, for app.inject (no socket). */
  app: FastifyInstance;
  /** fetch against the server with JSON helpers. */
  request(method: string, path: string, opts?: { key?: string; body?: unknown; headers?: Record<string, string>; raw?: string }): Promise<TestResponse>;
  /** Every route the HTTP app registered (method and URL pattern). */
  routes(): Array<{ method: string; url: string }>;
  /** A new user with a key (and, by default, 10 credits). */
  user(opts?: { email?: string; perMinute?: number; perDay?: number; microcredits?: bigint; org?: string }): Promise<{ email: string; key: string; accountId: string }>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

let counter = 0;

/** Starts a whole Atelier process (role all) in-process on a fresh database and a free port. */
export async function startTestServer(env: Record<string, string> = {}, opts: { role?: Role; databaseUrl?: string; dataDir?: string } = {}): Promise<TestServer> {
  const database = opts.databaseUrl ? { url: opts.databaseUrl, drop: async () => {} } : await freshDatabase();
  // A sibling process shares the first one's DATA_DIR (artifacts), as processes of one deployment do.
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-test-data-'));
  // Tests stop servers at once (grace 0: running jobs are handed back), as before graceful stops existed.
  const config: Config = {
    ...loadConfig({ ATELIER_MODEL_SMOKE_AT_START: '0', ATELIER_RUN_LEASE_SECONDS: '3', ATELIER_SWEEP_INTERVAL_MS: '200', ATELIER_SHUTDOWN_GRACE_MS: '0', ...(await blobStoreEnvForTests(dataDir, env)), ...env, DATA_DIR: dataDir, DATABASE_URL: database.url, PORT: '0', LOG_LEVEL: 'silent' }),
  };
  const server: RunningServer = await startServer(config, opts.role ?? 'all', { quiet: true });
  const url = server.url ?? '';

  const request: TestServer['request'] = async (method, p, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(url + p, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };

  return {
    url,
    routes: () => server.routeTable(),
    databaseUrl: database.url,
    dataDir,
    services: server.services,
    metricsUrl: server.metricsUrl,
    app: server.app!,
    request,
    async user(opts = {}) {
      const s = server.services;
      const email = opts.email ?? `user${++counter}-${process.pid}@example.com`;
      const user = await s.accounts.createUser({ email, password: 'correct horse battery', orgName: opts.org });
      const microcredits = opts.microcredits ?? 10_000_000n;
      if (microcredits > 0n) await s.credits.grant(user.actingAccountId, microcredits);
      const key = await s.keys.create(user, { label: 'test', perMinute: opts.perMinute ?? 10_000, perDay: opts.perDay ?? 100_000 });
      return { email, key: key.key, accountId: user.actingAccountId };
    },
    async close() {
      await server.stop();
      await database.drop();
      if (!opts.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Asserts the spec's error body; returns it for further checks. */
export function expectErrorBody(res: TestResponse, status: number, code: string): any {
  const b = res.body;
  const problems: string[] = [];
  if (res.status !== status) problems.push(`status ${res.status} != ${status}`);
  if (!b || typeof b !== 'object') problems.push(`body is not JSON: ${res.text.slice(0, 200)}`);
  else {
    if (b.code !== code) problems.push(`code ${b.code} != ${code}`);
    if (typeof b.error !== 'string' || b.error.length === 0) problems.push('error is not a non-empty string');
    if (b.message !== b.error) problems.push('message !== error');
    if (typeof b.traceId !== 'string' || !b.traceId.startsWith('req_')) problems.push(`traceId ${b.traceId}`);
    if (res.headers.get('x-request-id') !== b.traceId) problems.push('X-Request-Id header differs from traceId');
  }
  if (problems.length) throw new Error(`bad error answer: ${problems.join('; ')} — ${res.text.slice(0, 300)}`);
  return b;
}
