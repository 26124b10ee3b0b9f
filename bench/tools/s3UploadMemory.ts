// Memory of storing one large output in the S3 store: streamed from its file (the path video engines take)
// against read whole into a Buffer first (what every output did before). s3rver runs in a child process so
// only the uploader's memory is measured. A ratio within one run, no absolute goal.
//   node --import tsx bench/tools/s3UploadMemory.ts [MiB]     (default 192)
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { S3BlobStore } from '../../src/files/s3BlobStore.js';

const mib = Number(process.argv[2] ?? 192);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-s3mem-'));
const file = path.join(dir, 'output.bin');
const fd = fs.openSync(file, 'w');
for (let i = 0; i < mib; i++) fs.writeSync(fd, crypto.randomBytes(1024 * 1024));
fs.closeSync(fd);
const port = 20000 + Math.floor(Math.random() * 20000);
const server = spawn(process.execPath, [path.resolve('node_modules/s3rver/bin/s3rver.js'), '-d', path.join(dir, 's3'), '-a', '127.0.0.1', '-p', String(port), '-s'], { stdio: 'ignore' });
fs.mkdirSync(path.join(dir, 's3'), { recursive: true });
process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';

async function measure(mode: 'stream' | 'buffer') {
  const store = new S3BlobStore({ bucket: 'mem', endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', forcePathStyle: true, prefix: `${mode}/` });
  for (let i = 0; ; i++) {
    try {
      await store.client.send(new CreateBucketCommand({ Bucket: 'mem' }));
      break;
    } catch (err) {
      if ((err as { name?: string }).name?.startsWith('BucketAlready')) break;
      if (i > 50) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  global.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const t0 = Date.now();
  if (mode === 'stream') await store.putStream(fs.createReadStream(file));
  else await store.put(await fs.promises.readFile(file));
  clearInterval(timer);
  store.close();
  return { mode, extraRssMiB: Math.round((peak - base) / 2 ** 20), seconds: (Date.now() - t0) / 1000 };
}

try {
  const stream = await measure('stream');
  const buffer = await measure('buffer');
  console.log(JSON.stringify({ outputMiB: mib, stream, buffer, ratio: +(stream.extraRssMiB / Math.max(1, buffer.extraRssMiB)).toFixed(2) }));
} finally {
  server.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
}
