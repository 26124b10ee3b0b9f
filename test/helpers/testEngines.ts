import fs from 'node:fs';
import { f } from '../../src/catalog/fields.js';
import type { ModelDef } from '../../src/catalog/types.js';
import type { Engine } from '../../src/engines/types.js';

/**
 * Test-only engines that drive the execution layer's state machine without heavy models. They are loaded
 * only when a test sets ATELIER_TEST_ENGINES_MODULE to this file (startTestServer's `testEngines` option):
 * the service and its engine children then both register them. Files named in the input let a test see
 * the engine start and tell it when to finish.
 *
 * - test_sleep: writes its process id to `started_file`, then waits until `release_file` exists. With
 *   `busy`, it waits in a synchronous loop that never yields (a hostile, CPU-burning engine).
 * - test_abort: calls process.abort(); with `once_file`, only when that file does not exist yet (it is
 *   created first), so a retry on a fresh child succeeds.
 * - test_allocate: allocates without bound until the child's memory limit ends it.
 */
const spin = (ms: number) => {
  const end = Date.now() + ms;
  while (Date.now() < end);
};

export const engines: Engine[] = [
  {
    id: 'test-sleep', requirements: [], availability: async () => ({ available: true }),
    async execute(req, ctx) {
      const { started_file: started, release_file: release, busy } = req.input as { started_file: string; release_file: string; busy?: boolean };
      fs.writeFileSync(started, String(process.pid));
      ctx.progress(0.5, 'waiting to be told');
      while (!fs.existsSync(release)) {
        if (busy) spin(20);
        else await new Promise((r) => setTimeout(r, 20));
        if (ctx.signal.aborted && !busy) throw ctx.signal.reason;
      }
      return { output: { kind: 'text', text: `released in ${process.pid}` } };
    },
  },
  {
    id: 'test-abort', requirements: [], availability: async () => ({ available: true }),
    async execute(req) {
      const once = (req.input as { once_file?: string }).once_file;
      if (!once || !fs.existsSync(once)) {
        if (once) fs.writeFileSync(once, 'crashed once');
        process.abort();
      }
      return { output: { kind: 'text', text: 'survived' } };
    },
  },
  {
    id: 'test-allocate', requirements: [], availability: async () => ({ available: true }),
    async execute() {
      const hoard: unknown[] = [];
      for (;;) hoard.push(new Array(4_000_000).fill(hoard.length));
    },
  },
];

const flat = { kind: 'flat', microcredits: 1000 } as const;
const model = (nodeType: string, engine: string, fields: ModelDef['modes'][number]['fields']): ModelDef => ({
  nodeType, name: nodeType, description: 'Test-only engine', category: 'utility', icon: 'hash', accent: 'slate', provider: 'local',
  modes: [{ subModelId: engine, label: nodeType, category: 'text-utility', fields, outputs: [{ name: 'output', dataType: 'text' }], pricing: flat, engine: { engine }, timeoutSeconds: 60 }],
});

export const models: ModelDef[] = [
  model('test_sleep', 'test-sleep', [
    f.text('started_file', 'Path written when the engine starts', { required: true, maxLength: 500 }),
    f.text('release_file', 'Path whose existence ends the run', { required: true, maxLength: 500 }),
    f.boolean('busy', 'Wait without ever yielding', { default: false }),
  ]),
  model('test_abort', 'test-abort', [f.text('once_file', 'Crash only while this file does not exist', { maxLength: 500 })]),
  model('test_allocate', 'test-allocate', []),
];

/** Absolute path of this module, for ATELIER_TEST_ENGINES_MODULE. */
export const TEST_ENGINES_MODULE = new URL(import.meta.url).pathname;
