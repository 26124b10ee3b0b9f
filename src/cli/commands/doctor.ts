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
  const { values } = parseFlags(argv, { json: { type: 'boolean' }, 'stuck-after': { type: 'string' }, models: { type: 'boolean' }, only: { type: 'string' } });
  if (values.models === true) return doctorModels(ctx, values.json === true, typeof values.only === 'string' ? values.only.split(',').map((s) => s.trim()).filter(Boolean) : undefined);
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

/**
 * `atelier doctor --models`: runs each available local model's tiny smoke input through its engine (no
 * database needed) and reports what fails; exits 1 when any does. `--only a,b` limits it to some
 * nodeTypes. Every distinct engine binding is run (each GGUF file, both ESRGAN weights).
 */
async function doctorModels(ctx: CliContext, json: boolean, only: string[] | undefined): Promise<void> {
  const { loadCatalog } = await import('../../catalog/load.js');
  const { runModelSmoke, formatSmoke } = await import('../../ops/modelSmoke.js');
  const { closeThreadPools } = await import('../../engines/local/threads.js');
  const { catalog, engines } = await loadCatalog(ctx.config);
  if (only) {
    const unknown = only.filter((t) => !catalog.model(t));
    if (unknown.length) throw new UsageError(`--only: no model ${unknown.join(', ')}`);
  }
  try {
    const results = await runModelSmoke(catalog, engines, {
      only,
      onResult: json ? undefined : (r) => process.stderr.write(`${r.ok ? (r.skipped ? 'skip' : 'ok  ') : 'FAIL'} ${r.subModelId ?? r.nodeType}\n`),
    });
    const unavailable = catalog.models.filter((m) => m.provider === 'local' && !m.deprecated && (!only || only.includes(m.nodeType)) && !catalog.modelAvailability(m).available)
      .map((m) => ({ nodeType: m.nodeType, reason: catalog.modelAvailability(m).reason ?? 'unavailable' }));
    const ok = results.every((r) => r.ok);
    const human = [formatSmoke(results), ...(unavailable.length ? ['', 'Listed unavailable (not run):', ...unavailable.map((u) => `  ${u.nodeType}: ${u.reason}`)] : [])].join('\n');
    output(json, { ok, results, unavailable }, human);
    if (!ok) process.exitCode = 1;
  } finally {
    await closeThreadPools();
    await (await import('../../engines/local/llm/llamaCpp.js')).closeLlama().catch(() => {});
  }
}
