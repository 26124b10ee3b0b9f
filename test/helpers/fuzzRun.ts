import http from 'node:http';
import fc from 'fast-check';
import type { TestServer } from './server.js';
import { answerProblems, fuzzRequest, operationsOf, type FuzzRequest, type FuzzSeeds } from './fuzzRequests.js';

export interface FuzzOutcome {
  cases: number;
  viaSocket: number;
  statuses: Record<string, number>;
  /** fast-check's report of the first failing (shrunk) case, if any. */
  failure: string | undefined;
  ms: number;
}

/** Accounts, keys and real ids the fuzzer aims at. Keys get the highest limits a key may have (10,000 a minute). */
export async function fuzzSeeds(srv: TestServer): Promise<FuzzSeeds> {
  const me = await srv.user({ microcredits: 1_000_000_000n });
  const other = await srv.user();
  const ids: string[] = [];
  for (const who of [me, other]) {
    const wf = await srv.request('POST', '/v1/workflows', { key: who.key, body: { name: 'fuzz target' } });
    if (wf.body?.id) ids.push(wf.body.id);
    const run = await srv.request('POST', '/v1/nodes/word_count/run', { key: who.key, body: { input: { text: 'fuzz' } } });
    if (run.body?.runId) ids.push(run.body.runId);
  }
  const catalog = srv.services.catalog;
  const nodeTypes = catalog.models.slice(0, 40).map((m) => m.nodeType).concat('word_count', 'text_template');
  const fieldNames = [...new Set(catalog.models.flatMap((m) => m.modes.flatMap((mode) => mode.fields.map((f) => f.name))))].slice(0, 60);
  return { key: me.key, otherKey: other.key, ids, nodeTypes, fieldNames };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function overSocket(base: string, req: FuzzRequest): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    // A lying Content-Length would only stall a real connection; inject is where those lies are told.
    // Node's client frames a GET/DELETE body by neither length nor chunks unless told, so say the length.
    const { 'content-length': _lie, ...headers } = req.headers;
    if (req.payload !== undefined) headers['content-length'] = String(Buffer.byteLength(req.payload));
    const r = http.request(base + req.url, { method: req.method, headers, agent, timeout: 30_000 }, (res) => {
      // A run's event stream stays open until the run ends: its first answer is what is checked.
      if (res.statusCode === 200 && String(res.headers['content-type']).startsWith('text/event-stream')) {
        resolve({ status: 200, headers: res.headers, text: '' });
        r.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    r.on('timeout', () => r.destroy(new Error('timed out')));
    r.on('error', reject);
    r.end(req.payload);
  });
}

/**
 * Runs `cases` generated requests: most through app.inject (no socket, fast), every `socketEvery`-th over
 * a real loopback connection. Each answer must pass answerProblems; fast-check shrinks the first failure.
 */
export async function runFuzz(srv: TestServer, seeds: FuzzSeeds, opts: { cases: number; socketEvery?: number; seed?: number }): Promise<FuzzOutcome> {
  const doc = (await srv.request('GET', '/v1/openapi.json')).body;
  const ops = operationsOf(doc);
  const oversizeBytes = srv.services.config.bodyLimitBytes + 10;
  const socketEvery = opts.socketEvery ?? 10;
  const statuses: Record<string, number> = {};
  let n = 0;
  let viaSocket = 0;
  const started = Date.now();
  const property = fc.asyncProperty(
    fc.boolean().chain((socket) => fuzzRequest(doc, ops, seeds, { oversizeBytes, socket }).map((req) => ({ req, socket }))),
    async ({ req, socket }) => {
      // Event streams go over a socket: app.inject would wait for a stream that lasts as long as its run.
      const stream = /\/events(\?|$)/.test(req.url) && req.method === 'GET';
      let useSocket = stream || (socket && ++n % Math.ceil(socketEvery / 2) === 0);
      const t0 = Date.now();
      if (process.env.ATELIER_FUZZ_VERBOSE) process.stderr.write(`#${n} ${useSocket ? 'socket' : 'inject'} ${req.method} ${req.url.slice(0, 120)} ${JSON.stringify(req.headers).slice(0, 200)} body ${req.payload?.length ?? '-'}\n`);
      let status = 0;
      let headers: Record<string, any> = {};
      let text = '';
      if (useSocket) {
        viaSocket++;
        try {
          ({ status, headers, text } = await overSocket(srv.url, req));
        } catch (err) {
          // A URL no HTTP client would send (the generator made it for inject): send it that way instead.
          if (!/ERR_UNESCAPED_CHARACTERS|ERR_INVALID_URL|ERR_INVALID_CHAR/.test((err as any).code ?? '')) throw err;
          viaSocket--;
          useSocket = false;
        }
      }
      if (!useSocket) {
        const res = await srv.app.inject({ method: req.method as any, url: req.url, headers: req.headers, payload: req.payload });
        ({ statusCode: status, headers, body: text } = res);
      }
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (process.env.ATELIER_FUZZ_VERBOSE) process.stderr.write(`   → ${status} in ${Date.now() - t0} ms\n`);
      const problems = answerProblems(req, status, headers, text);
      if (problems.length) {
        throw new Error(`${req.op} → ${req.method} ${req.url.slice(0, 300)} answered ${status}: ${problems.join('; ')}\n${text.slice(0, 500)}`);
      }
    },
  );
  const report = await fc.check(property, { numRuns: opts.cases, seed: opts.seed, endOnFailure: false, maxSkipsPerRun: 0 });
  return {
    cases: report.numRuns,
    viaSocket,
    statuses,
    failure: report.failed ? `${fc.defaultReportMessage(report)}\n${(report.errorInstance as Error)?.message ?? report.errorInstance}` : undefined,
    ms: Date.now() - started,
  };
}
