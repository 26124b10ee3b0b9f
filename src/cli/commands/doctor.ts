import type { CliContext } from '../context.js';
import { optionalInt, output, parseFlags, UsageError } from '../args.js';
import { formatReport, runDoctor } from '../../ops/doctor.js';

/**
 * Verifies the service's invariants (ledger sums, open holds, double charges, stuck runs and deliveries)
 * and reports every violation; exits 1 when it finds any, so it can gate a deploy or page someone.
 */
export async function doctorCommand(ctx: CliContext, argv: string[]): Promise<void> {
  const { values } = parseFlags(argv, { json: { type: 'boolean' }, 'stuck-after': { type: 'string' } });
  const stuckAfterSeconds = optionalInt(values, 'stuck-after') ?? 300;
  if (stuckAfterSeconds < 0 || stuckAfterSeconds > 30 * 86_400) throw new UsageError('--stuck-after must be 0..2592000 seconds');
  const { pricingCatalog } = await import('../../ops/nodeChargeCheck.js');
  const report = await runDoctor(await ctx.db(), { stuckAfterSeconds, catalog: await pricingCatalog(ctx.config) });
  output(values.json === true, report, formatReport(report));
  // The report was made: a finding is not an error of the command, so it is said with the exit code alone.
  if (!report.ok) process.exitCode = 1;
}
