import type { Media } from '../engines/types.js';
import { providerUrl, type HandOffOptions } from './handOff.js';
import type { FileService } from './service.js';

/**
 * Resolves this service's own file URLs (`…/v1/files/{id}` or `…/api/v1/files/{id}`, signed or not) to bytes without a network
 * round trip. An unsigned URL resolves only for the file's owner; a signed one for anyone until it expires.
 * Returns undefined for URLs that are not ours, so they are fetched like any other. With `handOff` (an engine's
 * inputs), the media also carries a URL a provider can fetch the file from, when there is one (handOff.ts).
 */
export function ownFileResolver(files: FileService, accountId: string, publicUrl: () => string, handOff?: HandOffOptions) {
  return async (url: URL): Promise<Media | undefined> => {
    // Both path forms the service answers (src/http/pathForms.ts): /v1/files/… and the hosted /api/v1/files/….
    const m = /^(?:\/api)?\/v1\/files\/(file_[0-9A-Za-z]{1,40})$/.exec(url.pathname);
    if (!m) return undefined;
    if (url.origin !== new URL(publicUrl()).origin) return undefined;
    const id = m[1]!;
    const rec = await files.get(id);
    const signed = await files.verify(id, url.searchParams.get('exp') ?? undefined, url.searchParams.get('sig') ?? undefined);
    if (!rec || (rec.accountId !== accountId && !signed)) throw new Error(`file ${id} was not found`);
    const chunks: Buffer[] = [];
    for await (const chunk of await files.open(rec)) chunks.push(chunk as Buffer);
    const link = handOff ? await providerUrl(files, rec, handOff) : undefined;
    return { bytes: Buffer.concat(chunks), contentType: rec.contentType, ...(link ? { url: link } : {}) };
  };
}
