// A node:test reporter that prints how long each test file took (first event seen to last), slowest first.
// scripts/test.mjs adds it when ATELIER_TEST_TIMINGS names a file to write to, so the suite's slow files
// can be found from one run (the CI budget is 25 minutes on a busy 2-core machine).
export default async function* fileTimings(source) {
  const files = new Map();
  for await (const event of source) {
    const file = event.data?.file;
    if (!file) continue;
    const now = Date.now();
    const seen = files.get(file) ?? { first: now, last: now, failed: 0 };
    seen.last = now;
    if (event.type === 'test:fail' && event.data.nesting === 0) seen.failed += 1;
    files.set(file, seen);
  }
  const rows = [...files].map(([file, s]) => ({ file, seconds: (s.last - s.first) / 1000, failed: s.failed }));
  rows.sort((a, b) => b.seconds - a.seconds);
  for (const r of rows) yield `${r.seconds.toFixed(1).padStart(7)} s  ${r.failed ? 'FAILED ' : ''}${r.file}\n`;
}
