import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchPostgres } from '../lib/database.js';
import { hammer, type LoadResult } from '../lib/load.js';
import { row, type Row } from '../lib/report.js';
import { startService } from '../lib/service.js';

/** An OTLP/HTTP endpoint that takes every export and keeps only the byte count (a collector that keeps up). */
async function otlpSink(): Promise<{ url: string; bytes: () => number; close(): Promise<void> }> {
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bytes: () => bytes,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/**
 * (traces) What OpenTelemetry traces cost on the hot path: the rate of POST /v1/nodes/word_count/run on an
 * API-only process with traces on (every request a server span and a run span, exported to a local OTLP
 * sink) against the same process with traces off (the default), rounds alternated so the machine's load
 * falls on both alike.
 */
export async function traces(pgInfo: BenchPostgres, opts: { seconds: number; connections: number; rounds: number }): Promise<Row[]> {
  const sink = await otlpSink();
  const body = JSON.stringify({ input: { text: 'hello world' } });
  const measure = async (env: Record<string, string>): Promise<LoadResult> => {
    const svc = await startService(pgInfo, ['api'], env);
    try {
      const keys = (await svc.keys(10)).map((k) => k.key);
      const url = `${svc.url}/v1/nodes/word_count/run`;
      await hammer({ url, method: 'POST', body, connections: opts.connections, seconds: 2, keys });
      return await hammer({ url, method: 'POST', body, connections: opts.connections, seconds: opts.seconds, keys });
    } finally {
      await svc.stop();
    }
  };
  const off: LoadResult[] = [];
  const on: LoadResult[] = [];
  try {
    for (let i = 0; i < opts.rounds; i++) {
      off.push(await measure({}));
      on.push(await measure({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }));
    }
  } finally {
    await sink.close();
  }
  const best = (rs: LoadResult[]) => rs.reduce((a, b) => (b.rps > a.rps ? b : a));
  const a = best(off);
  const b = best(on);
  const errors = [...off, ...on].reduce((s, r) => s + r.non2xx + r.errors, 0);
  return [
    row({ scenario: 'traces', metric: `creates/s with traces on (${opts.connections} connections, best of ${opts.rounds})`, figure: b.rps, unit: 'runs/s', baseline: a.rps, baselineLabel: 'creates/s with traces off (the default)', goal: '≥ 0.8 × off', met: b.rps >= 0.8 * a.rps, note: `${Math.round(sink.bytes() / 1024)} kB of OTLP JSON exported${errors ? `; ${errors} non-2xx or errors` : ''}` }),
    row({ scenario: 'traces', metric: 'create latency p50 with traces on', figure: b.p50, unit: 'ms', baseline: a.p50, baselineLabel: 'p50 ms with traces off' }),
  ];
}
