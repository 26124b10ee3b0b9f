import { EngineError, type Media } from '../types.js';
import type { ProviderClient } from './http.js';
import { dataUri } from './inputs.js';
import type { RunScope } from './signals.js';

/**
 * How media inputs reach fal and Replicate, the way each documents it (issue 28). First choice, for both: a
 * URL the provider fetches from us — the input is one of our files and the service has a URL for it that
 * the provider can reach (`Media.url`: the S3 store's presigned URL, or the signed file URL under a
 * reachable PUBLIC_URL; src/files/handOff.ts). Otherwise inline `data:` URIs only within the provider's
 * limit, and above it the provider's own file upload and the URL it answers:
 *
 * - Replicate: data URLs for files up to 256 KB, HTTP URLs above (its client refuses inline data over
 *   10 MB); larger files are created with POST /v1/files (multipart `content`) and passed as the file's
 *   `urls.get`.
 * - fal: URLs work with every model, data URIs only with some; fal's client uploads every file to fal's
 *   storage (POST {storage}/storage/upload/initiate `{ content_type, file_name }` → `{ upload_url, file_url }`,
 *   then PUT the bytes to upload_url) and sends file_url. So do we, whatever the size.
 */

/** Replicate's "256 KB" read the strict way (256,000 bytes), so no reading of it is exceeded. */
export const REPLICATE_INLINE_MAX_BYTES = 256_000;

const extOf = (type: string) => (type.split('/')[1] ?? 'bin').split(/[+;-]/)[0] || 'bin';

export async function replicateMedia(client: ProviderClient, m: Media, scope: RunScope): Promise<string> {
  if (m.url) return m.url;
  if (m.bytes.length <= REPLICATE_INLINE_MAX_BYTES) return dataUri(m);
  const form = new FormData();
  const filename = `input.${extOf(m.contentType)}`;
  form.set('content', new Blob([new Uint8Array(m.bytes)], { type: m.contentType }), filename);
  form.set('filename', filename);
  form.set('type', m.contentType);
  // Creating a file starts no paid work: retried like any other request.
  const f = (await client.request('files', { body: form, signal: scope.signal, deadline: scope.deadline })).json<{ urls?: { get?: string } }>();
  if (typeof f.urls?.get !== 'string') throw new EngineError(`${client.cfg.label} stored an input file but sent no URL for it`);
  return f.urls.get;
}

export async function falMedia(storage: ProviderClient, m: Media, scope: RunScope, opts: { allowPrivate: boolean; timeoutMs: number }): Promise<string> {
  if (m.url) return m.url;
  const init = (await storage.request('storage/upload/initiate', { json: { content_type: m.contentType, file_name: `${Date.now()}.${extOf(m.contentType)}` }, signal: scope.signal, deadline: scope.deadline }))
    .json<{ upload_url?: string; file_url?: string }>();
  if (typeof init.upload_url !== 'string' || typeof init.file_url !== 'string') throw new EngineError('fal storage answered the upload without upload_url and file_url');
  const target = new URL(init.upload_url);
  // A pre-signed URL on fal's storage: it gets the bytes, never the key.
  if (target.protocol !== 'https:' && !opts.allowPrivate) throw new EngineError(`fal storage gave an upload URL that is not https (${target.host})`);
  const res = await fetch(target, {
    method: 'PUT',
    headers: { 'content-type': m.contentType },
    body: new Uint8Array(m.bytes),
    signal: AbortSignal.any([scope.signal, AbortSignal.timeout(opts.timeoutMs)]),
    redirect: 'error',
  }).catch((err: Error) => {
    throw new EngineError(`uploading an input to fal storage failed: ${err.message}`, true);
  });
  await res.arrayBuffer().catch(() => undefined);
  if (!res.ok) throw new EngineError(`uploading an input to fal storage failed: HTTP ${res.status}`, res.status >= 500);
  return init.file_url;
}
