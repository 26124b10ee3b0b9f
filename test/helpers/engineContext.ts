import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EngineContext, FetchMediaOptions, Media } from '../../src/engines/types.js';

/**
 * An EngineContext for engine tests: a real scratch folder, a recorder of progress calls, and a
 * fetchMedia that accepts data: URLs and local fixture paths (file:// URLs) so tests stay offline.
 */
export function testContext(opts: { timeoutMs?: number; signal?: AbortSignal } = {}) {
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-engine-test-'));
  const progress: Array<[number, string | undefined]> = [];
  const ctx: EngineContext = {
    signal: opts.signal ?? new AbortController().signal,
    deadline: Date.now() + (opts.timeoutMs ?? 120_000),
    progress: (fraction, message) => progress.push([fraction, message]),
    log: { debug: () => {}, info: () => {}, warn: () => {} },
    tmpDir,
    async fetchMedia(url: string, _o?: FetchMediaOptions): Promise<Media> {
      if (url.startsWith('data:')) {
        const m = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(url);
        if (!m) throw new Error('bad data URL');
        const bytes = m[2] ? Buffer.from(m[3]!, 'base64') : Buffer.from(decodeURIComponent(m[3]!));
        return { bytes, contentType: m[1] || 'application/octet-stream' };
      }
      if (url.startsWith('file://')) return { bytes: fs.readFileSync(new URL(url)), contentType: 'application/octet-stream' };
      throw new Error(`test context cannot fetch ${url}`);
    },
  };
  return { ctx, progress, cleanup: () => fs.rmSync(tmpDir, { recursive: true, force: true }) };
}

export function dataUrl(bytes: Buffer, contentType: string): string {
  return `data:${contentType};base64,${bytes.toString('base64')}`;
}
