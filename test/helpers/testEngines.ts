import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { ffmpegInfo } from '../../src/engines/local/ffmpeg.js';
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
 * - test_hoard: fills `mb` MiB of Buffers (native memory, outside the JS heap limit), then returns.
 * - test_spawn: starts a program that runs for ten minutes (ffmpeg, real time), writes "CHILD_PID PROGRAM_PID"
 *   to `started_file`, and waits for it; a test kills the child and watches the program.
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
  {
    id: 'test-hoard', requirements: [], availability: async () => ({ available: true }),
    async execute(req, ctx) {
      const hoard: Buffer[] = [];
      for (let i = 0; i < Number((req.input as { mb?: number }).mb ?? 512); i++) {
        hoard.push(Buffer.alloc(1024 * 1024, i & 0xff));
        if (i % 32 === 0) await new Promise((r) => setTimeout(r, 10));
        if (ctx.signal.aborted) throw ctx.signal.reason;
      }
      return { output: { kind: 'text', text: `hoarded ${hoard.length} MiB` } };
    },
  },
  {
    id: 'test-spawn', requirements: [], availability: async () => ({ available: true }),
    async execute(req, ctx) {
      const { started_file: started } = req.input as { started_file: string };
      const program = spawn(ffmpegInfo()!.ffmpeg, ['-nostdin', '-v', 'error', '-re', '-f', 'lavfi', '-i', 'sine=duration=600', '-f', 'null', '-'], { stdio: 'ignore' });
      fs.writeFileSync(started, `${process.pid} ${program.pid}`);
      await new Promise((resolve) => program.on('close', resolve));
      if (ctx.signal.aborted) throw ctx.signal.reason;
      return { output: { kind: 'text', text: 'the program ended' } };
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
  model('test_hoard', 'test-hoard', [f.integer('mb', 'MiB of native memory to fill', { default: 512, min: 1, max: 4096 })]),
  model('test_spawn', 'test-spawn', [f.text('started_file', 'Path written when the program starts', { required: true, maxLength: 500 })]),
];

/** Absolute path of this module, for ATELIER_TEST_ENGINES_MODULE. */
export const TEST_ENGINES_MODULE = new URL(import.meta.url).pathname;
