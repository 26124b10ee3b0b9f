import type { FetchMediaOptions, Media } from './types.js';
import { EngineInputError } from './types.js';

/**
 * Interim media fetcher: data: URLs and this service's own file URLs. Remote https fetching with SSRF
 * guards replaces this when the outbound URL guard lands.
 */
export function basicMediaFetcher(resolveOwnFile: (url: URL) => Promise<Media | undefined>) {
  return async (raw: string, _opts?: FetchMediaOptions): Promise<Media> => {
    if (raw.startsWith('data:')) {
      const m = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(raw);
      if (!m) throw new EngineInputError('malformed data: URL');
      return { bytes: m[2] ? Buffer.from(m[3]!, 'base64') : Buffer.from(decodeURIComponent(m[3]!)), contentType: m[1] || 'application/octet-stream' };
    }
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new EngineInputError(`"${raw.slice(0, 100)}" is not a URL`);
    }
    const own = await resolveOwnFile(url);
    if (own) return own;
    throw new EngineInputError(`cannot fetch ${url.protocol} media here`);
  };
}
