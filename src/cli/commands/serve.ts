import type { CliContext } from '../context.js';
import { parseFlags, UsageError } from '../args.js';
import { ROLES, startServer, type Role, type RunningServer } from '../../app/server.js';
import { isConnectionError } from '../../db/pool.js';
import { createLogger } from '../../logger.js';
import { startTracing, stopTracing } from '../../tracing/tracing.js';

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
  // Signals are taken from the first moment, not only once the service is up: a Ctrl-C (or a signal to the
  // whole process group) during start-up lets the start finish, then stops cleanly (runs handed back, the
  // embedded PostgreSQL stopped) instead of leaving a half-started service and its database behind.
  let server: RunningServer | undefined;
  let stopWanted = false;
  let signals = 0;
  let release: () => void = () => {};
  const finished = new Promise<void>((resolve) => (release = resolve));
  const stop = (srv: RunningServer) => {
    // A stop that hangs (an engine ignoring its abort) must not keep a deploy waiting for ever.
    setTimeout(() => {
      process.stderr.write('atelier: graceful stop took too long; exiting\n');
      process.exit(1);
    }, config.shutdownGraceMs + 30_000).unref();
    // The spans of the last requests and runs are sent once everything else has stopped.
    srv.stop().finally(() => stopTracing()).finally(release);
  };
  const shutdown = (signal: NodeJS.Signals) => {
    // A second signal means "now": exit without waiting for the graceful stop.
    if (++signals > 1) process.exit(1);
    stopWanted = true;
    if (server) stop(server);
    else log.info({ signal }, 'stop requested during start-up: stopping as soon as the start is complete');
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  // Signals bin/atelier.mjs kept while the sources loaded.
  const early = (globalThis as { atelierEarlySignals?: { take(): NodeJS.Signals[] } }).atelierEarlySignals?.take() ?? [];
  for (const signal of early) shutdown(signal);
  await startTracing(role); // off unless OTEL_* asks (docs/deploy.md "Traces")
  server = await startServer(config, role);
  if (stopWanted) stop(server);
  await finished;
}
