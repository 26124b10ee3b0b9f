import type { BenchPostgres } from '../lib/database.js';
import { row, type Row } from '../lib/report.js';
import { startTestServer } from '../../test/helpers/server.js';
import { fuzzSeeds, runFuzz } from '../../test/helpers/fuzzRun.js';

/**
 * (e) The fuzz test's generator at bench scale: `cases` hostile requests (a fresh random seed each run,
 * reported so a failure can be replayed with ATELIER_FUZZ_SEED). The baseline is the CI run's case count.
 */
export async function fuzz(pg: BenchPostgres, opts: { cases: number; seed: number }): Promise<Row[]> {
  process.env.ATELIER_TEST_ADMIN_URL ??= pg.adminUrl;
  const srv = await startTestServer({ ATELIER_BODY_LIMIT: String(256 * 1024) }, { role: 'api' });
  try {
    const seeds = await fuzzSeeds(srv);
    const out = await runFuzz(srv, seeds, { cases: opts.cases, socketEvery: 10, seed: opts.seed });
    const health = await srv.request('GET', '/healthz');
    const up = health.status === 200;
    return [
      row({ scenario: 'e. fuzzing', metric: `hostile requests without a 5xx or a malformed error (seed ${opts.seed})`, figure: out.failure ? 0 : out.cases, unit: 'cases', baseline: 400, baselineLabel: 'cases in CI', goal: `${opts.cases} cases, no failure, server up`, met: !out.failure && out.cases === opts.cases && up,
        note: out.failure ? out.failure.slice(0, 1000) : `${Math.round(out.cases / (out.ms / 1000))} cases/s, ${out.viaSocket} over a socket; statuses ${JSON.stringify(out.statuses)}` }),
    ];
  } finally {
    await srv.close();
  }
}
