import type { CliContext } from '../context.js';
import { optionalInt, output, parseFlags, UsageError } from '../args.js';
import { formatReport, runDoctor } from '../../ops/doctor.js';
import { FileService } from '../../files/service.js';
import { createBlobStore } from '../../files/stores.js';

/**
 * Verifies the service's invariants (ledger sums, open holds, double charges, stuck runs and deliveries, missing artifact blobs)
 * and reports every violation; exits 1 when it finds any, so it can gate a deploy or page someone.
 */
export async function doctorCommand(ctx: CliContext, argv: string[]): Promise<void> {
  const { values } = parseFlags(argv, { json: { type: 'boolean' }, 'stuck-after': { type: 'string' } });
  const stuckAfterSeconds = optionalInt(values, 'stuck-after') ?? 300;
  if (stuckAfterSeconds < 0 || stuckAfterSeconds > 30 * 86_400) throw new UsageError('--stuck-after must be 0..2592000 seconds');
  const db = await ctx.db();
  // The artifact store this deployment's settings name (a folder or a bucket), for the missing-blob check.
  const blobs = createBlobStore(ctx.config);
  const files = new FileService(db, blobs, { publicUrl: () => '', retentionSeconds: 0, urlTtlSeconds: 60 });
  const { pricingCatalog } = await import('../../ops/nodeChargeCheck.js');
  const report = await runDoctor(db, { stuckAfterSeconds, files, catalog: await pricingCatalog(ctx.config) }).finally(() => blobs.close?.());
  output(values.json === true, report, formatReport(report));
  // The report was made: a finding is not an error of the command, so it is said with the exit code alone.
  if (!report.ok) process.exitCode = 1;
}
