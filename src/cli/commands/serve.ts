import type { CliContext } from '../context.js';
import { parseFlags, UsageError } from '../args.js';
import { ROLES, startServer, type Role } from '../../server.js';
import { isConnectionError } from '../../db/pool.js';
import { createLogger } from '../../logger.js';

export async function serveCommand(ctx: CliContext, argv: string[]): Promise<void> {
  const { values } = parseFlags(argv, { role: { type: 'string' }, port: { type: 'string' } });
  const role = (values.role ?? 'all') as Role;
  if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  const config = { ...ctx.config };
  if (values.port !== undefined) {
    const p = Number(values.port);
    if (!Number.isInteger(p) || p < 0 || p > 65535) throw new UsageError('--port must be 0..65535');
    config.port = p;
  }
  // pg-boss 10 marks a finished job complete without awaiting it, so a connection lost at that moment
  // surfaces as an unhandled rejection, which would end the process. The job's run is already settled in
  // our own tables, so that one is logged and survived; any other unhandled rejection still ends the process.
  const log = createLogger(config.logLevel);
  process.on('unhandledRejection', (reason) => {
    if (!isConnectionError(reason)) throw reason;
    log.warn({ err: reason }, 'database connection lost under a background query; continuing');
  });
  const server = await startServer(config, role);
  await new Promise<void>((resolve) => {
    let signals = 0;
    const shutdown = () => {
      // A second signal means "now": exit without waiting for the graceful stop.
      if (++signals > 1) process.exit(1);
      // A stop that hangs (an engine ignoring its abort) must not keep a deploy waiting for ever.
      setTimeout(() => {
        process.stderr.write('atelier: graceful stop took too long; exiting\n');
        process.exit(1);
      }, config.shutdownGraceMs + 30_000).unref();
      server.stop().finally(resolve);
    };
    process.on('SIGINT', shutdown);
    process.on('SIGTERM', shutdown);
  });
}
