import { Atelier } from '../../../packages/sdk/src/client.js';
import type { AtelierError } from '../../../packages/sdk/src/errors.js';
import { UsageError } from '../args.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/**
 * The client the human commands use: the server at ATELIER_URL (or --url) with ATELIER_API_KEY. The key
 * is read only from the environment so it never lands in shell history or in `ps` output.
 */
export function connect(url: string | undefined, env: NodeJS.ProcessEnv = process.env): Atelier {
  const apiKey = env.ATELIER_API_KEY?.trim();
  if (!apiKey) {
    throw new UsageError('set ATELIER_API_KEY to an API key (`atelier quickstart --email E` or `atelier keys create` makes one)');
  }
  const baseUrl = url ?? env.ATELIER_URL?.trim() ?? DEFAULT_URL;
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new UsageError(`ATELIER_URL "${baseUrl}" is not a URL (example: ${DEFAULT_URL})`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`ATELIER_URL must be http:// or https://, not ${parsed.protocol}`);
  return new Atelier({ baseUrl: parsed.origin + parsed.pathname.replace(/\/+$/, ''), apiKey });
}

/** One line for the terminal: the server's message, its code and the trace id to quote in a report. */
export function describeApiError(err: AtelierError): string {
  const fields = (err.details ?? []).map((d) => `${d.path || '(body)'}: ${d.message}`);
  const nodes = (err.nodeErrors ?? []).map((n) => `node ${n.nodeId}${n.port ? ` port ${n.port}` : ''}: ${n.message}`);
  const extra = [...fields, ...nodes];
  const where = [err.code, err.traceId].filter(Boolean).join(', ');
  return `${err.message}${where ? ` (${where})` : ''}${extra.length ? `\n  ${extra.join('\n  ')}` : ''}`;
}
