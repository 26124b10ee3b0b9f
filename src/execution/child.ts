import { statSync } from 'node:fs';
import os from 'node:os';
import type { Engine, EngineContext, EngineOutputs, FetchMediaOptions, Media } from '../engines/types.js';
import { outputBytes } from './limits.js';
import { rebuildError, serializeError, type ChildMessage, type ChildResult, type ChildTask, type EngineSetup, type ParentMessage } from './protocol.js';
import { flushTracing, startTracing, underTraceparent } from '../tracing/tracing.js';

/**
 * Runs inside an engine child process (one task at a time; see childPool.ts). Builds this build's engines
 * once per child, runs the engine named by the task with a context whose progress, logs and media
 * fetches are messages to the parent, and refuses an output over the size limit before it is sent, so
 * an oversized result never reaches the service's memory.
 */

const send = (m: ChildMessage) => {
  try {
    // With a callback a closed channel (the service stopped while this child started) is not an unhandled
    // 'error' event that prints a stack trace as the child exits.
    process.send?.(m, undefined, undefined, () => {});
  } catch {
    // Unserialisable log data: the message is dropped rather than failing the run.
  }
};

let engines: Promise<Map<string, Engine>> | undefined;
let current: AbortController | undefined;
let mediaSeq = 0;
const media = new Map<number, { resolve(m: Media): void; reject(e: Error): void }>();

async function loadEngines(setup: EngineSetup): Promise<Map<string, Engine>> {
  const { allEngines } = await import('../engines/all.js');
  const { loadConfig } = await import('../config.js');
  const config = loadConfig({ ...process.env, MODELS_DIR: setup.modelsDir, ATELIER_ALLOW_PRIVATE_URLS: setup.allowPrivateUrls ? '1' : '' });
  const list = allEngines(config);
  if (setup.testEnginesModule) {
    const { importTestEngines } = await import('../engines/testEnginesModule.js');
    list.push(...(await importTestEngines<{ engines: Engine[] }>(setup.testEnginesModule)).engines);
  }
  return new Map(list.map((e) => [e.id, e]));
}

// Engines yield the CPU to the service: a child (and every program it starts) runs at a lower priority,
// so a busy encode on the same machine does not slow the API's answers (ATELIER_ENGINE_NICE, 0 to keep).
try {
  os.setPriority(0, Math.max(0, Math.min(19, Number(process.env.ATELIER_ENGINE_NICE ?? 10) || 0)));
} catch {
  // not permitted here: run at the normal priority
}

process.on('message', (m: ParentMessage) => {
  if (!m || typeof m !== 'object' || !('t' in m)) return;
  if (m.t === 'run') {
    void underTraceparent(m.task.traceparent, () => runTask(m.task)).then((result) => {
      const heapUsed = process.memoryUsage().heapUsed;
      try {
        process.send?.({ t: 'result', taskId: m.task.taskId, result, heapUsed } satisfies ChildMessage);
      } catch (err) {
        // An output the channel cannot carry fails the task rather than leaving it waiting.
        send({ t: 'result', taskId: m.task.taskId, result: { ok: false, error: serializeError(err) }, heapUsed });
      }
    }).then(flushTracing); // after the result, so a slow trace collector never holds a run up
  } else if (m.t === 'media') {
    const p = media.get(m.id);
    if (!p) return;
    media.delete(m.id);
    if (m.error) p.reject(rebuildError(m.error));
    else p.resolve({ bytes: Buffer.from(m.bytes!.buffer, m.bytes!.byteOffset, m.bytes!.byteLength), contentType: m.contentType!, ...(m.url ? { url: m.url } : {}) });
  } else if (m.t === 'abort') {
    current?.abort(new Error('canceled'));
  }
});

// This child leads its own process group (childPool.ts): only the service decides when it stops, by
// killing that group. A SIGINT or SIGTERM from elsewhere (a terminal, systemd's control-group stop) is
// ignored, so the service's graceful stop can still hand its task back; SIGKILL still ends it.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});

// The service process died (kill -9 included): stop the engine and leave, taking every program this child
// started with it (they are in its process group), rather than run on unowned.
process.on('disconnect', () => {
  current?.abort(new Error('canceled'));
  setTimeout(() => {
    try {
      process.kill(-process.pid, 'SIGKILL');
    } finally {
      process.exit(1);
    }
  }, current ? 200 : 0);
});

async function runTask(task: ChildTask): Promise<ChildResult> {
  const ctl = new AbortController();
  current = ctl;
  try {
    engines ??= loadEngines(task.setup);
    if (task.engineId === '') {
      await engines; // a warm-up task: load the engines, run nothing
      return { ok: true, outputs: {} };
    }
    const engine = (await engines).get(task.engineId);
    if (!engine) throw new Error(`engine ${task.engineId} is not part of this build`);
    const log = (level: 'debug' | 'info' | 'warn') => (msg: string, data?: Record<string, unknown>) => send({ t: 'log', taskId: task.taskId, level, msg, data });
    const ctx: EngineContext = {
      signal: ctl.signal,
      deadline: task.deadline,
      tmpDir: task.tmpDir,
      progress: (fraction, message) => send({ t: 'progress', taskId: task.taskId, fraction, message }),
      delta: (text) => send({ t: 'delta', taskId: task.taskId, text }),
      log: { debug: log('debug'), info: log('info'), warn: log('warn') },
      fetchMedia: (url: string, opts?: FetchMediaOptions) => new Promise<Media>((resolve, reject) => {
        const id = ++mediaSeq;
        media.set(id, { resolve, reject });
        send({ t: 'fetchMedia', taskId: task.taskId, id, url, opts });
      }),
      maxOutputBytes: task.maxOutputBytes,
    };
    const outputs = await engine.execute(task.req, ctx);
    const size = outputBytes(outputs, (file) => statSync(file).size);
    if (size > task.maxOutputBytes) {
      return { ok: false, error: { name: 'RunFailure', code: 'OUTPUT_TOO_LARGE', message: `the output is ${size} bytes, over this server's limit of ${task.maxOutputBytes} bytes per run (ATELIER_MAX_OUTPUT_BYTES)` } };
    }
    return { ok: true, outputs };
  } catch (err) {
    return { ok: false, error: serializeError(err) };
  } finally {
    current = undefined;
  }
}

// Traces, when the operator's OTEL_* variables (inherited from the service) ask for them.
await startTracing('engine');

// Listening now: the pool may send the first task.
send({ t: 'ready' });
