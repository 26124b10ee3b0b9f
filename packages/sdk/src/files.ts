import type { Transport } from './transport.js';

export interface DownloadedFile {
  bytes: Uint8Array;
  contentType: string;
}

/** Artifact downloads, by file id (with the key) or by the signed URL a run output carries. */
export class FilesApi {
  constructor(private readonly t: Transport) {}

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
