import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { traceLogFields } from './tracing/tracing.js';

/**
 * Whether to write human lines instead of JSON: on a terminal, unless LOG_FORMAT=json asks for JSON;
 * LOG_FORMAT=pretty forces human lines (e.g. `npm start | tee`). Log collectors read stdout that is not a
 * terminal, so they keep getting one JSON object per line.
 */
export function wantsPrettyLogs(env: NodeJS.ProcessEnv = process.env, isTty = Boolean(process.stdout.isTTY)): boolean {
  const format = (env.LOG_FORMAT ?? '').toLowerCase();
  if (format === 'json') return false;
  if (format === 'pretty') return true;
  return isTty;
}

/** The process logger. Authorization headers are redacted wherever they might appear. */
export function createLogger(level: string, opts: { pretty?: boolean; destination?: NodeJS.WritableStream } = {}): Logger {
  const options = {
    level,
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.authorization', 'key'], censor: '[redacted]' },
    // trace_id and span_id of the active span, while traces are on (tracing/tracing.ts); nothing otherwise.
    mixin: traceLogFields,
  };
  if (!(opts.pretty ?? wantsPrettyLogs())) return pino(options, opts.destination ?? jsonStdout());
  // Synchronous, in this thread: a start-up line is on the terminal before the next step begins.
  return pino(options, pretty({ sync: true, destination: opts.destination ?? 1, colorize: !opts.destination && Boolean(process.stdout.isTTY), translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', singleLine: true }));
}

/**
 * JSON lines to stdout, buffered: written when 4 kB have gathered (about 25 request lines) or at the
 * latest a quarter of a second after the first of them. pino's default, one synchronous write per line,
 * cost the API a system call per request and stalls every request while a log collector is slow to read
 * a pipe; its plain asynchronous mode cost a thread-pool write per line. pino flushes what is left when the
 * process exits (a kill -9 loses at most the last quarter second); a collector that stops reading makes
 * it drop lines past 16 MiB instead of holding them all.
 */
function jsonStdout() {
  const dest = pino.destination({ dest: 1, sync: false, minLength: 4096, maxLength: 16 * 1024 * 1024 });
  let written = 0;
  const write = dest.write.bind(dest);
  dest.write = (data: string) => {
    written++;
    return write(data);
  };
  setInterval(() => {
    // Nothing new since the last tick: no empty write.
    if (written === 0) return;
    written = 0;
    dest.flush();
  }, 250).unref();
  return dest;
}
