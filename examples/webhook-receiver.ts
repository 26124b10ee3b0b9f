/**
 * A webhook receiver for Atelier, written as spec 6.4 asks:
 *   1. verify the signature over the raw, unparsed body before trusting anything;
 *   2. answer 200 at once (slow answers cause retries, and so duplicates);
 *   3. process asynchronously, and idempotently: de-duplicate by webhook-id.
 *
 * Run:  ATELIER_WEBHOOK_SECRET=whsec_… npx tsx examples/webhook-receiver.ts
 * (the secret: `npx atelier webhooks secret --email you@example.com` or GET /v1/webhooks/secret)
 * Then pass { "webhook": { "url": "http://127.0.0.1:9000/hooks" } } when you start a run
 * (loopback receivers need ATELIER_ALLOW_PRIVATE_URLS=1 on the server).
 */
import crypto from 'node:crypto';
import http from 'node:http';

const SECRET = process.env.ATELIER_WEBHOOK_SECRET ?? '';
const PORT = Number(process.env.PORT ?? 9000);
const TOLERANCE_SECONDS = 5 * 60;

if (!SECRET.startsWith('whsec_')) {
  console.error('set ATELIER_WEBHOOK_SECRET to your whsec_… signing secret');
  process.exit(1);
}
const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');

/** Standard Webhooks: v1,base64(HMAC-SHA256(key, `${id}.${timestamp}.${rawBody}`)); several may be sent, space-separated. */
function verify(headers: http.IncomingHttpHeaders, rawBody: Buffer): boolean {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sigs = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof ts !== 'string' || typeof sigs !== 'string') return false;
  if (!/^\d+$/.test(ts) || Math.abs(Date.now() / 1000 - Number(ts)) > TOLERANCE_SECONDS) return false; // replay protection
  const expected = crypto.createHmac('sha256', key).update(`${id}.${ts}.`).update(rawBody).digest();
  return sigs.split(' ').some((s) => {
    const [version, mac] = s.split(',');
    const given = Buffer.from(mac ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
}

// Seen webhook-ids. A real service keeps these in its database (a unique column) so restarts remember them.
const seen = new Map<string, number>();
setInterval(() => {
  const cutoff = Date.now() - 48 * 3600_000;
  for (const [id, at] of seen) if (at < cutoff) seen.delete(id);
}, 3600_000).unref();

async function handle(event: { type: string; runId: string; data: Record<string, unknown>; metadata: unknown; error: string | null }): Promise<void> {
  // Your work goes here: store outputs, notify users, start the next step…
  console.log(`${event.type} for ${event.runId}`, event.error ?? '', JSON.stringify(event.data).slice(0, 200));
}

http.createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks); // the exact bytes that were signed: do not re-serialise parsed JSON
    if (!verify(req.headers, raw)) {
      res.writeHead(400).end('bad signature');
      return;
    }
    res.writeHead(200).end('ok'); // answer first, work later
    const id = req.headers['webhook-id'] as string;
    if (seen.has(id)) return; // a retry of something already handled
    seen.set(id, Date.now());
    setImmediate(() => {
      handle(JSON.parse(raw.toString('utf8'))).catch((err) => {
        seen.delete(id); // let a later retry or a replay try again
        console.error('processing failed', err);
      });
    });
  });
}).listen(PORT, '127.0.0.1', () => console.log(`receiving webhooks on http://127.0.0.1:${PORT}/hooks`));
