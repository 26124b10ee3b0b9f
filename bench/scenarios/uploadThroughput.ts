import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { BenchPostgres } from '../lib/database.js';
import { row, type Row } from '../lib/report.js';
import { startService } from '../lib/service.js';

const MB = 1024 * 1024;

/** `bytes` of a file the upload takes as a PNG (its signature and header, then random filler). */
function writeSource(file: string, bytes: number): void {
  const header = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write('IHDR', 12, 'latin1');
  header.writeUInt32BE(1, 16);
  header.writeUInt32BE(1, 20);
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, header);
  const block = crypto.randomBytes(4 * MB);
  for (let left = bytes - header.length; left > 0; left -= block.length) fs.writeSync(fd, block, 0, Math.min(left, block.length));
  fs.closeSync(fd);
}

function post(url: string, key: string, file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/v1/files`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-length': String(fs.statSync(file).size) },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    fs.createReadStream(file).pipe(req);
  });
}

/**
 * (upload) MB/s of a file streamed through POST /v1/files into the local store, against copying the same
 * bytes from the same source file to the same disk (a read stream piped to a write stream) in the same run:
 * what the HTTP path, hashing, type check and bookkeeping cost over the disk itself. Each file holds
 * different bytes (the store keeps one copy of identical content, and must really write each time).
 */
export async function uploadThroughput(pg: BenchPostgres, opts: { megabytes: number; rounds: number }): Promise<Row[]> {
  const svc = await startService(pg, ['api'], { ATELIER_UPLOAD_MAX_MB: String(opts.megabytes + 1), ATELIER_STORAGE_QUOTA_MB: '0', ATELIER_UPLOADS_PER_MINUTE: '0', ATELIER_DISK_RESERVE_MB: '0', LOG_LEVEL: 'warn' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-upload-'));
  try {
    const key = (await svc.keys(1))[0]!.key;
    const bytes = opts.megabytes * MB;
    let best = 0;
    let disk = 0;
    for (let i = 0; i < opts.rounds; i++) {
      const source = path.join(dir, `source-${i}`);
      writeSource(source, bytes);
      const t0 = process.hrtime.bigint();
      await pipeline(fs.createReadStream(source), fs.createWriteStream(path.join(dir, `copy-${i}`)));
      disk = Math.max(disk, bytes / MB / (Number(process.hrtime.bigint() - t0) / 1e9));
      fs.rmSync(path.join(dir, `copy-${i}`));
      // Different bytes for the upload than for the copy's page cache: a fresh source of the same size.
      writeSource(source, bytes);
      const t1 = process.hrtime.bigint();
      const status = await post(svc.url, key, source);
      if (status !== 201) throw new Error(`POST /v1/files answered ${status}`);
      best = Math.max(best, bytes / MB / (Number(process.hrtime.bigint() - t1) / 1e9));
      fs.rmSync(source);
    }
    return [row({
      scenario: 'upload', metric: `POST /v1/files to the local store, ${opts.megabytes} MB (best of ${opts.rounds})`, figure: best, unit: 'MB/s',
      baseline: disk, baselineLabel: 'copying the same bytes on the same disk, MB/s', goal: '≥ 0.3 × the disk copy', met: best >= 0.3 * disk,
    })];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await svc.stop();
  }
}
