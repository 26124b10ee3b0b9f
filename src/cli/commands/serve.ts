import type { CliContext } from '../context.js';
import { parseFlags, UsageError } from '../args.js';
import { ROLES, startServer, type Role } from '../../server.js';

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
  const server = await startServer(config, role);
  await new Promise<void>((resolve) => {
    const shutdown = () => {
      process.off('SIGINT', shutdown);
      process.off('SIGTERM', shutdown);
      server.stop().finally(resolve);
    };
    process.on('SIGINT', shutdown);
    process.on('SIGTERM', shutdown);
  });
}
