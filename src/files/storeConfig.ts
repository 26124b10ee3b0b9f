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
