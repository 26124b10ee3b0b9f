let tsxRegistered = false;

/**
 * Imports the test-only engines module (ATELIER_TEST_ENGINES_MODULE, set by the test helpers only); `M` is the
 * shape its importer reads (engines, and models for the catalog). That module is TypeScript: a process running
 * the compiled build (build/) registers tsx just before importing it, so the test suite's processes run plain
 * JavaScript everywhere else. A process already running the sources has tsx.
 */
export async function importTestEngines<M>(modulePath: string): Promise<M> {
  if (modulePath.endsWith('.ts') && !import.meta.url.endsWith('.ts') && !tsxRegistered) {
    (await import('tsx/esm/api')).register();
    tsxRegistered = true;
  }
  return (await import(modulePath)) as M;
}
