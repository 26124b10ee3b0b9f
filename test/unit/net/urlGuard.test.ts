import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkUrl, guardedFetch, OutboundError, type Resolver } from '../../../src/net/urlGuard.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void;

async function serve(handler: Handler): Promise<{ url: string; port: number; server: http.Server }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${port}`, port, server };
}

const fixed = (map: Record<string, string[]>): Resolver & { calls: string[] } => {
  const calls: string[] = [];
  const fn = async (host: string) => {
    calls.push(host);
    const list = map[host];
    if (!list) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
  return Object.assign(fn, { calls });
};

async function refusedWith(p: Promise<unknown>, code: string, pattern?: RegExp) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof OutboundError, `expected OutboundError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (pattern) assert.match(err.message, pattern);
    return true;
  });
}

test('checkUrl refuses schemes other than http(s), and http unless allowed', async () => {
  for (const u of ['ftp://example.com/x', 'file:///etc/passwd', 'data:text/plain,hi', 'javascript:alert(1)', 'gopher://x/']) {
    await refusedWith(checkUrl(u, { allowPrivate: true, allowHttp: true }), 'scheme', /not allowed/);
  }
  await refusedWith(checkUrl('http://example.com/', { resolve: fixed({}) }), 'insecure', /plain http/);
  await refusedWith(checkUrl('not a url'), 'invalid-url');
});

test('checkUrl refuses internal literals, including odd spellings the URL parser normalises', async () => {
  for (const u of ['https://127.0.0.1/', 'https://2130706433/', 'https://0x7f.1/', 'https://[::1]/', 'https://[::ffff:10.0.0.1]/', 'https://169.254.169.254/latest/meta-data', 'https://0.0.0.0/', 'https://[fd00::1]/', 'https://100.64.0.1/']) {
    await refusedWith(checkUrl(u), 'blocked-address', /ATELIER_ALLOW_PRIVATE_URLS=1/);
  }
  const ok = await checkUrl('https://8.8.8.8/x');
  assert.deepEqual(ok.addresses, [{ address: '8.8.8.8', family: 4 }]);
});

test('checkUrl resolves every record and refuses when any is internal', async () => {
  const resolve = fixed({ 'mixed.test': ['93.184.216.34', '10.0.0.5'], 'good.test': ['93.184.216.34', '2606:4700::1'], 'local.test': ['127.0.0.1'] });
  await refusedWith(checkUrl('https://mixed.test/', { resolve }), 'blocked-address', /10\.0\.0\.5 is a private-network address \(mixed\.test resolves to it\)/);
  await refusedWith(checkUrl('https://local.test/', { resolve }), 'blocked-address', /loopback/);
  const good = await checkUrl('https://good.test/', { resolve });
  assert.equal(good.addresses.length, 2);
  await refusedWith(checkUrl('https://nowhere.test/', { resolve }), 'dns', /cannot resolve host nowhere\.test \(ENOTFOUND\)/);
  // allowPrivate lets everything through
  assert.equal((await checkUrl('http://local.test/', { resolve, allowPrivate: true, allowHttp: true })).addresses[0]!.address, '127.0.0.1');
});

test('guardedFetch refuses a loopback server unless private URLs are allowed', async () => {
  const s = await serve((_req, res) => res.end('hello'));
  await refusedWith(guardedFetch(`${s.url}/x`, { allowHttp: true }), 'blocked-address', /127\.0\.0\.1 is a loopback address/);
  await refusedWith(guardedFetch(`${s.url}/x`), 'insecure');
  const res = await guardedFetch(`${s.url}/x`, { allowPrivate: true });
  assert.equal(res.status, 200);
  assert.equal(res.text(), 'hello');
  assert.equal(res.ok, true);
});

test('the connection is pinned to the checked address: no second DNS lookup', async () => {
  let hostHeader = '';
  const s = await serve((req, res) => {
    hostHeader = req.headers.host ?? '';
    res.end('pinned');
  });
  // The system resolver has never heard of this name; only the injected one answers, once per hop.
  const resolve = fixed({ 'media.example.test': ['127.0.0.1'] });
  const res = await guardedFetch(`http://media.example.test:${s.port}/a`, { allowPrivate: true, resolve });
  assert.equal(res.text(), 'pinned');
  assert.equal(hostHeader, `media.example.test:${s.port}`);
  assert.deepEqual(resolve.calls, ['media.example.test']);
});

test('redirects are followed by hand, each hop checked, at most 5', async () => {
  const s = await serve((req, res) => {
    const m = /^\/r(\d+)$/.exec(req.url ?? '');
    if (m) {
      const n = Number(m[1]);
      res.writeHead(302, { location: n > 0 ? `/r${n - 1}` : '/done' }).end();
      return;
    }
    if (req.url === '/to-file') return void res.writeHead(301, { location: 'file:///etc/passwd' }).end();
    if (req.url === '/to-unknown') return void res.writeHead(307, { location: 'http://unknown.test/x' }).end();
    res.end(`at ${req.url}`);
  });
  const ok = await guardedFetch(`${s.url}/r3`, { allowPrivate: true });
  assert.equal(ok.text(), 'at /done');
  assert.equal(ok.redirects, 4);
  assert.equal(ok.url, `${s.url}/done`);
  await refusedWith(guardedFetch(`${s.url}/r5`, { allowPrivate: true }), 'too-many-redirects');
  await refusedWith(guardedFetch(`${s.url}/to-file`, { allowPrivate: true }), 'scheme');
  // the second hop's host is resolved (and would be classified) on its own
  const resolve = fixed({});
  await refusedWith(guardedFetch(`${s.url}/to-unknown`, { allowPrivate: true, resolve }), 'dns', /unknown\.test/);
  assert.deepEqual(resolve.calls, ['unknown.test']);
});

test('redirects: 303 turns a POST into a GET; credentials do not follow to another origin', async () => {
  const seen: Array<{ method?: string; auth?: string; body: string }> = [];
  const other = await serve((req, res, body) => {
    seen.push({ method: req.method, auth: req.headers.authorization, body: body.toString() });
    res.end('other');
  });
  const s = await serve((req, res, body) => {
    seen.push({ method: req.method, auth: req.headers.authorization, body: body.toString() });
    if (req.url === '/post') return void res.writeHead(303, { location: '/got' }).end();
    if (req.url === '/away') return void res.writeHead(307, { location: `${other.url}/x` }).end();
    res.end('same');
  });
  await guardedFetch(`${s.url}/post`, { allowPrivate: true, method: 'POST', body: 'payload', headers: { authorization: 'Bearer t', 'content-type': 'text/plain' } });
  assert.deepEqual(seen.splice(0), [
    { method: 'POST', auth: 'Bearer t', body: 'payload' },
    { method: 'GET', auth: 'Bearer t', body: '' },
  ]);
  await guardedFetch(`${s.url}/away`, { allowPrivate: true, method: 'PUT', body: 'p2', headers: { authorization: 'Bearer t' } });
  assert.deepEqual(seen.splice(0), [
    { method: 'PUT', auth: 'Bearer t', body: 'p2' },
    { method: 'PUT', auth: undefined, body: 'p2' },
  ]);
});

test('the byte limit is enforced from Content-Length and while streaming', async () => {
  const s = await serve((req, res) => {
    if (req.url === '/declared') {
      res.writeHead(200, { 'content-length': '5000' });
      res.end(Buffer.alloc(5000));
      return;
    }
    // chunked, no length: the limit must trip while reading
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    let sent = 0;
    const push = () => {
      if (sent >= 1_000_000 || res.destroyed) return res.end();
      sent += 16_384;
      res.write(Buffer.alloc(16_384), () => setImmediate(push));
    };
    push();
  });
  await refusedWith(guardedFetch(`${s.url}/declared`, { allowPrivate: true, maxBytes: 1000 }), 'too-large', /5000 bytes, over the limit of 1000/);
  await refusedWith(guardedFetch(`${s.url}/stream`, { allowPrivate: true, maxBytes: 100_000 }), 'too-large', /over the limit of 100000 bytes/);
  const ok = await guardedFetch(`${s.url}/declared`, { allowPrivate: true, maxBytes: 5000 });
  assert.equal(ok.body.length, 5000);
});

test('total time-out and the caller signal stop the request', async () => {
  const s = await serve((req, res) => {
    if (req.url === '/slow-body') {
      res.writeHead(200);
      res.write('partial');
      return; // never ends
    }
    // never answers
  });
  // Neither server ever finishes: each refusal is the time-out's doing.
  await refusedWith(guardedFetch(`${s.url}/hang`, { allowPrivate: true, timeoutMs: 150 }), 'timeout', /timed out after 150 ms/);
  await refusedWith(guardedFetch(`${s.url}/slow-body`, { allowPrivate: true, timeoutMs: 150 }), 'timeout');
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(), 50);
  await refusedWith(guardedFetch(`${s.url}/hang`, { allowPrivate: true, signal: ctl.signal, timeoutMs: 10_000 }), 'aborted');
});

test('a closed port is a network error, not a crash', async () => {
  const s = await serve((_q, r) => r.end());
  const port = s.port;
  await new Promise<void>((r) => {
    s.server.closeAllConnections();
    s.server.close(() => r());
  });
  await refusedWith(guardedFetch(`http://127.0.0.1:${port}/`, { allowPrivate: true }), 'network', /ECONNREFUSED/);
});

test('IPv6 literals: refused as loopback, reachable with allowPrivate', async (t) => {
  const server = http.createServer((req, res) => res.end(`v6 ${req.headers.host}`));
  const ok = await new Promise<boolean>((r) => {
    server.once('error', () => r(false));
    server.listen(0, '::1', () => r(true));
  });
  if (!ok) return t.skip('no IPv6 loopback here');
  after(() => server.close());
  const port = (server.address() as AddressInfo).port;
  await refusedWith(guardedFetch(`http://[::1]:${port}/`, { allowHttp: true }), 'blocked-address', /::1 is a loopback address/);
  assert.equal((await guardedFetch(`http://[::1]:${port}/`, { allowPrivate: true })).text(), `v6 [::1]:${port}`);
});
