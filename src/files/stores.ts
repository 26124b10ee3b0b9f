import path from 'node:path';
import { LocalBlobStore, type BlobStore } from './blobStore.js';
import { S3BlobStore } from './s3BlobStore.js';
import type { BlobStoreConfig } from '../config.js';

/** The artifact store a process's settings name: the local folder DATA_DIR/files, or an S3-compatible bucket. */
export function createBlobStore(config: { dataDir: string; blobStore: BlobStoreConfig; storage?: { reserveBytes: number } }): BlobStore {
  if (config.blobStore.kind === 's3' && config.blobStore.s3) return new S3BlobStore(config.blobStore.s3);
  return new LocalBlobStore(path.join(config.dataDir, 'files'), { reserveBytes: config.storage?.reserveBytes ?? 0 });
}
