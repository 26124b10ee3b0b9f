import pino, { type Logger } from 'pino';

/** The process logger. Authorization headers are redacted wherever they might appear. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.authorization', 'key'], censor: '[redacted]' },
  });
}
