import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local OTLP/HTTP trace receiver: accepts POST /v1/traces in the JSON encoding (what
 * @opentelemetry/exporter-trace-otlp-http sends) and keeps every span with its resource's attributes,
 * flattened. Ids are hex strings, as the OTLP JSON encoding writes them.
 */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  status: { code?: number; message?: string };
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Requests that were not a JSON export (content type, path), to fail a test that expects none. */
  refused: string[];
  close(): Promise<void>;
}

/** An OTLP AnyValue as a plain value. */
function valueOf(v: Record<string, any> | undefined): unknown {
  if (!v) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('boolValue' in v) return v.boolValue;
  if ('arrayValue' in v) return (v.arrayValue.values ?? []).map(valueOf);
  return JSON.stringify(v);
}

const flat = (attrs: Array<{ key: string; value: Record<string, any> }> | undefined) => Object.fromEntries((attrs ?? []).map((a) => [a.key, valueOf(a.value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const refused: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = String(req.headers['content-type'] ?? '');
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !type.startsWith('application/json')) {
        refused.push(`${req.method} ${req.url} ${type}`);
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) {
        const resource = flat(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', name: s.name, kind: s.kind,
              startNs: BigInt(s.startTimeUnixNano), endNs: BigInt(s.endTimeUnixNano), status: s.status ?? {},
              attributes: flat(s.attributes), resource,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    refused,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export interface SpanNode {
  span: ReceivedSpan;
  children: SpanNode[];
}

/** The spans of one trace as trees (roots: spans whose parent is not among them), children by start time. */
export function spanTree(spans: ReceivedSpan[], traceId: string): SpanNode[] {
  const mine = spans.filter((s) => s.traceId === traceId).sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
  const nodes = new Map(mine.map((s) => [s.spanId, { span: s, children: [] as SpanNode[] }]));
  const roots: SpanNode[] = [];
  for (const n of nodes.values()) {
    const parent = n.span.parentSpanId ? nodes.get(n.span.parentSpanId) : undefined;
    (parent ? parent.children : roots).push(n);
  }
  return roots;
}

const KIND = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];

/** Attributes worth a line in a printed tree (ids and money first). */
const SHOWN = ['http.route', 'http.response.status_code', 'atelier.run.id', 'atelier.node.id', 'atelier.model', 'atelier.route', 'atelier.provider', 'url.full',
  'atelier.microcredits.reserved', 'atelier.microcredits.charged', 'atelier.run.status', 'atelier.run.charged_microcredits', 'atelier.node.status', 'atelier.event.type'];

/**
 * The trees as text, one span a line: name, kind, the process that made it (resource `atelier.process`),
 * its duration and its main attributes, drawn with box characters.
 */
export function formatSpanTree(roots: SpanNode[]): string {
  const lines: string[] = [];
  const walk = (n: SpanNode, prefix: string, last: boolean, top: boolean) => {
    const s = n.span;
    const ms = Number(s.endNs - s.startNs) / 1e6;
    const attrs = SHOWN.filter((k) => s.attributes[k] !== undefined).map((k) => `${k.replace(/^atelier\./, '')}=${s.attributes[k]}`).join(' ');
    const error = s.status.code === 2 ? ` ERROR(${s.status.message ?? ''})` : '';
    lines.push(`${prefix}${top ? '' : last ? '└─ ' : '├─ '}${s.name} [${KIND[s.kind] ?? s.kind}, ${s.resource['atelier.process'] ?? '?'}] ${ms.toFixed(1)} ms${error}${attrs ? `  ${attrs}` : ''}`);
    const childPrefix = top ? prefix : prefix + (last ? '   ' : '│  ');
    n.children.forEach((c, i) => walk(c, childPrefix, i === n.children.length - 1, false));
  };
  roots.forEach((r) => walk(r, '', true, true));
  return lines.join('\n');
}
