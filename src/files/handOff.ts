import { checkUrl } from '../net/urlGuard.js';
import type { FileRecord } from './record.js';
import type { FileService } from './service.js';

/**
 * A URL of one of our files that a provider (fal, Replicate) can fetch itself, so a large input goes to it
 * as a link instead of through its own upload API or an inline data: URI (issue 28): with the S3 store, the
 * object's presigned GET URL; else, when PUBLIC_URL is set and names a host the internet reaches, our own
 * signed file URL. Undefined when neither applies: the adapter then uses the provider's file upload.
 *
 * "Reachable" is decided as our own outbound requests are (src/net/checkUrl.ts): an https URL whose host
 * resolves to public addresses only — unless ATELIER_ALLOW_PRIVATE_URLS=1, which says the providers share
 * our private network (a ComfyUI next door, the fakes in tests).
 */
export interface HandOffOptions {
  /** PUBLIC_URL as the operator set it; undefined when unset (the listen address is no URL a provider reaches). */
  publicUrl?: string;
  allowPrivate: boolean;
  /** How long the URL lives (ATELIER_FILE_URL_TTL_SECONDS): a job may wait in a provider's queue a while. */
  ttlSeconds: number;
}

/** S3 presigned URLs live at most 7 days (SigV4). */
const PRESIGN_MAX_SECONDS = 7 * 86_400;

export async function providerUrl(files: FileService, rec: FileRecord, o: HandOffOptions): Promise<string | undefined> {
  const left = rec.expiresAt ? Math.floor((rec.expiresAt.getTime() - Date.now()) / 1000) : Infinity;
  if (left < 60) return undefined; // a file about to expire is better sent as bytes
  if (files.blobs.directUrl) {
    try {
      const url = await files.blobs.directUrl(rec.sha256, { expiresInSeconds: Math.min(o.ttlSeconds, PRESIGN_MAX_SECONDS, left), contentType: rec.contentType });
      if (await reachable(url, o.allowPrivate)) return url;
    } catch {
      // A store that cannot presign now (credentials, endpoint) leaves the provider's own upload.
    }
  }
  if (o.publicUrl && (await reachable(o.publicUrl, o.allowPrivate))) return files.signedUrl(rec);
  return undefined;
}

async function reachable(url: string, allowPrivate: boolean): Promise<boolean> {
  try {
    await checkUrl(url, { allowPrivate, allowHttp: allowPrivate });
    return true;
  } catch {
    return false;
  }
}
