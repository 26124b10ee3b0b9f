import type { Transport } from './transport.js';

export interface DownloadedFile {
  bytes: Uint8Array;
  contentType: string;
}

/** A file as POST /v1/files answers it and GET /v1/files lists it. */
export interface FileDocument {
  id: string;
  /** Signed: works without a key until it expires. */
  url: string;
  /** Never expires: downloads with the owner's key; the owner's runs take it as a media input. */
  stableUrl: string;
  contentType: string;
  bytes: number;
  filename?: string;
  width?: number;
  height?: number;
  durationSeconds?: number;
  source: 'upload' | 'output';
  runId: string | null;
  createdAt: string;
  expiresAt: string | null;
}

export interface ListFilesQuery {
  cursor?: string;
  limit?: number;
  kind?: 'image' | 'audio' | 'video';
  source?: 'upload' | 'output';
  runId?: string;
  createdAfter?: string;
  createdBefore?: string;
}

/**
 * Uploads, the media library, and artifact downloads by file id (with the key) or by the signed URL a run
 * output carries.
 */
export class FilesApi {
  constructor(private readonly t: Transport) {}

  /**
   * Uploads a file's bytes (POST /v1/files). A Blob from `fs.openAsBlob(path)` streams from disk; the server
   * checks the bytes against `contentType` (default: let the bytes decide).
   */
  upload(data: Uint8Array | Blob, opts: { contentType?: string; filename?: string } = {}): Promise<FileDocument> {
    return this.t.request('POST', '/v1/files', {
      query: { filename: opts.filename }, rawBody: data,
      headers: { 'content-type': opts.contentType ?? (data instanceof Blob && data.type ? data.type : 'application/octet-stream') },
    });
  }

  /** Stores a file the server fetches from `url`, or given inline as a `data:` URI or base64 (MCP upload_file's shapes). */
  uploadFrom(source: { url?: string; data?: string; base64?: string; contentType?: string; filename?: string }): Promise<FileDocument> {
    return this.t.request('POST', '/v1/files', { body: source });
  }

  /** The account's files (uploads and run outputs), newest first; pass nextCursor back as cursor. */
  list(query: ListFilesQuery = {}): Promise<{ items: FileDocument[]; nextCursor: string | null }> {
    return this.t.request('GET', '/v1/files', { query: { ...query } });
  }

  /** One file's metadata (GET /v1/files/{id}/metadata). */
  get(id: string): Promise<FileDocument> {
    return this.t.request('GET', `/v1/files/${encodeURIComponent(id)}/metadata`);
  }

  async download(idOrUrl: string): Promise<DownloadedFile> {
    const isUrl = /^https?:\/\//.test(idOrUrl);
    const url = isUrl ? idOrUrl : this.t.url(`/v1/files/${encodeURIComponent(idOrUrl)}`);
    // A signed URL needs no key; the key only goes to our own origin, never to another host.
    const withKey = !isUrl || new URL(idOrUrl).origin === new URL(this.t.baseUrl).origin;
    const res = await this.t.send('GET', url, { headers: { accept: '*/*' } }, withKey);
    return { bytes: new Uint8Array(await res.arrayBuffer()), contentType: res.headers.get('content-type') ?? 'application/octet-stream' };
  }

  /** Deletes one of the account's files (an upload or a run output); it stops counting against the storage quota. */
  delete(id: string): Promise<void> {
    return this.t.request('DELETE', `/v1/files/${encodeURIComponent(id)}`);
  }
}
