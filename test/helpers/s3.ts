import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
// s3rver ships no types: a real S3 protocol server (buckets on disk) run inside the test process.
// @ts-expect-error no declaration file
import S3rver from 's3rver';

// The pinned SDK supports Node 20 (see docs/deploy.md); its notice about future releases is noise in test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** Credentials s3rver checks signatures against (its documented defaults). */
export const S3RVER_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

export interface S3TestServer {
  /** http://ADDRESS:PORT */
  endpoint: string;
  directory: string;
  /** Creates a bucket (idempotent) and returns the env that points Atelier at it. */
  bucketEnv(bucket: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/** Starts s3rver on `address` (loopback by default) and a free port, its buckets in a temporary folder. */
export async function startS3Server(opts: { address?: string; port?: number; unref?: boolean } = {}): Promise<S3TestServer> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-s3-'));
  const server = new S3rver({ address: opts.address ?? '127.0.0.1', port: opts.port ?? 0, directory, silent: true, vhostBuckets: false });
  const info = await server.run();
  // The suite-wide server must not keep a test file's process alive once its tests are done.
  if (opts.unref) {
    const http = server.httpServer as import('node:http').Server;
    http.unref();
    http.keepAliveTimeout = 1000;
    http.on('connection', (socket) => socket.unref());
  }
  const endpoint = `http://${info.address.includes(':') ? `[${info.address}]` : info.address}:${info.port}`;
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  const made = new Set<string>();
  return {
    endpoint,
    directory,
    async bucketEnv(bucket) {
      if (!made.has(bucket)) {
        await client.send(new CreateBucketCommand({ Bucket: bucket })).catch((err) => {
          if (err?.name !== 'BucketAlreadyOwnedByYou' && err?.name !== 'BucketAlreadyExists') throw err;
        });
        made.add(bucket);
      }
      return {
        ATELIER_BLOB_STORE: 's3', ATELIER_S3_BUCKET: bucket, ATELIER_S3_ENDPOINT: endpoint,
        ATELIER_S3_REGION: 'us-east-1', ATELIER_S3_FORCE_PATH_STYLE: '1', ...S3RVER_CREDENTIALS,
      };
    },
    async close() {
      client.destroy();
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

// `ATELIER_BLOB_STORE=s3 npm test`: scripts/test.mjs hands the choice to the helpers as ATELIER_TEST_BLOB_STORE,
// so a process a test spawns with the parent's environment is not half-configured (s3 without a bucket); the
// helpers add the whole bucket env wherever a server is started. (The same mapping here, for `node --test`.)
if (process.env.ATELIER_BLOB_STORE === 's3') {
  process.env.ATELIER_TEST_BLOB_STORE = 's3';
  delete process.env.ATELIER_BLOB_STORE;
}
export const S3_TEST_MODE = process.env.ATELIER_TEST_BLOB_STORE === 's3';

let shared: Promise<S3TestServer> | undefined;
const known = new Map<string, Record<string, string>>();

/**
 * With ATELIER_BLOB_STORE=s3 in the test environment (`ATELIER_BLOB_STORE=s3 npm test`), the env that puts a
 * test server's artifacts in a bucket of an s3rver started once per test file; else {}. The bucket is named
 * after the server's DATA_DIR, so sibling processes given the same DATA_DIR share it, as they would share
 * the folder; servers of unrelated databases never share one (a sweep could delete the other's blobs).
 */
export async function blobStoreEnvForTests(dataDir: string, env: Record<string, string | undefined> = {}): Promise<Record<string, string>> {
  if (!S3_TEST_MODE || env.ATELIER_BLOB_STORE || env.ATELIER_S3_ENDPOINT) return {};
  if (known.has(dataDir)) return known.get(dataDir)!;
  if (!shared) {
    // In-process servers find credentials where production does: the SDK's chain, here the environment.
    Object.assign(process.env, S3RVER_CREDENTIALS);
    shared = startS3Server({ unref: true });
    const s = await shared;
    process.once('exit', () => fs.rmSync(s.directory, { recursive: true, force: true }));
  }
  const bucket = `t-${crypto.createHash('sha256').update(dataDir).digest('hex').slice(0, 24)}`;
  const got = await (await shared).bucketEnv(bucket);
  known.set(dataDir, got);
  return got;
}

/**
 * For tests that spawn `atelier serve` themselves next to a test server: the bucket env of the server that
 * uses this DATA_DIR (already started, so no waiting), or {} when the suite runs on the local store.
 */
export function knownBlobEnv(dataDir: string): Record<string, string> {
  if (!S3_TEST_MODE) return {};
  const env = known.get(dataDir);
  if (!env) throw new Error(`no test server with DATA_DIR ${dataDir} started an s3rver bucket yet`);
  return env;
}
