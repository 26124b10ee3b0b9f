import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildResult, ChildTask } from './protocol.js';
import { PoolsClosed, RunFailure } from './failure.js';
import { groupAlive, killGroup } from './processGroup.js';
import type { ChildMessage, ParentMessage } from './protocol.js';

const ENTRY = fileURLToPath(new URL('./childEntry.mjs', import.meta.url));

/** One engine call waiting for, or running in, a child. */
export interface ChildJob {
  task: ChildTask;
  /** Aborting it kills the child running the job (and every program the child started). */
  signal: AbortSignal;
  /** Progress, logs and media requests of the job; `reply` answers the child. */
  onMessage(m: ChildMessage, reply: (m: ParentMessage) => void): void;
}

interface Waiting extends ChildJob {
  resolve(r: ChildResult): void;
  reject(err: unknown): void;
  onAbort?: () => void;
}

export interface ChildPoolOptions {
  family: string;
  minChildren: number;
  maxChildren: number;
  idleMs: number;
  /** A child whose heap is larger than this after a task is replaced. */
  recycleHeapBytes: number;
  execArgv: string[];
  env: Record<string, string>;
  onEvent(msg: string, data: Record<string, unknown>): void;
}

/** How long a canceled engine has to stop its provider's work before its child is killed. */
const CANCEL_GRACE_MS = 500;

/**
 * One engine child process: forked detached, so it leads a process group (and session) of its own that the
 * service's group signals never reach. Every way it ends goes through its group: kill() signals the whole
 * group, and when the child itself exits (a crash, the memory limit) the group is killed after it, so no
 * ffmpeg it started runs on without a parent.
 */
export class EngineChild {
  readonly proc: ChildProcess;
  readonly pid: number;
  job: Waiting | undefined;
  ready = false;
  exited = false;
  idleTimer: NodeJS.Timeout | undefined;
  /** Why the supervisor killed it, given to the task it was running. */
  private killedWith: unknown;
  readonly done: Promise<void>;

  constructor(opts: ChildPoolOptions, private readonly onExit: (child: EngineChild, how: string, killedWith: unknown) => void, onMessage: (child: EngineChild, m: ChildMessage) => void) {
    this.proc = fork(ENTRY, [], {
      detached: true,
      execArgv: opts.execArgv,
      env: opts.env,
      // Buffers (file outputs, fetched media) cross as bytes rather than as JSON arrays.
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.pid = this.proc.pid ?? -1;
    this.done = new Promise((resolve) => {
      let ended = false;
      const end = (how: string) => {
        if (ended) return;
        ended = true;
        this.exited = true;
        clearTimeout(this.idleTimer);
        // The programs it started go with it.
        if (this.pid > 0) killGroup(this.pid);
        onExit(this, how, this.killedWith);
        resolve();
      };
      this.proc.on('exit', (code, signal) => end(signal ?? `exit code ${code}`));
      // A child that could not be started (or whose channel broke) is a child that exited.
      this.proc.on('error', (err) => {
        if (this.proc.exitCode === null && this.proc.signalCode === null && this.pid > 0) killGroup(this.pid);
        end(`error: ${err.message}`);
      });
    });
    this.proc.on('message', (m: ChildMessage) => {
      if (m && typeof m === 'object') onMessage(this, m);
    });
    // A child never keeps the service's process alive on its own: the service ends it when it stops.
    this.proc.unref();
    (this.proc.channel as { unref?: () => void } | undefined)?.unref?.();
    if (this.pid <= 0) queueMicrotask(() => this.proc.emit('error', new Error('the engine process could not be started')));
  }

  send(m: ParentMessage): void {
    if (this.exited || !this.proc.connected) return;
    try {
      this.proc.send(m, (err) => {
        if (err) this.kill(new RunFailure('ENGINE_CRASHED', `engine process unreachable: ${err.message}`, true));
      });
    } catch (err) {
      this.kill(new RunFailure('ENGINE_CRASHED', `engine process unreachable: ${(err as Error).message}`, true));
    }
  }

  /**
   * Cancels the child's task: the engine is told to abort (so it can stop paid work at its provider, e.g.
   * delete a dubbing job) and the child, with everything it started, is killed after `graceMs` whatever
   * the engine did meanwhile. `reason` becomes its task's failure.
   */
  cancel(reason: unknown, graceMs = CANCEL_GRACE_MS): void {
    if (this.killedWith === undefined) this.killedWith = reason ?? null;
    this.send({ t: 'abort' });
    const timer = setTimeout(() => this.kill(reason), graceMs);
    timer.unref();
    void this.done.then(() => clearTimeout(timer));
  }

  /** Ends the child and everything it started at once; `reason` becomes its task's failure. */
  kill(reason?: unknown): void {
    if (this.killedWith === undefined) this.killedWith = reason ?? null;
    if (this.pid > 0 && !killGroup(this.pid)) this.proc.kill('SIGKILL');
  }
}

/**
 * A pool of engine children for one family: at most `maxChildren` at once, each running one task at a time,
 * tasks waiting in order for a free child, idle children ended after `idleMs` (down to `minChildren`).
 * Nothing here throws or emits an unhandled error: a child that dies fails its own task (if it had one)
 * and is replaced when work needs it.
 */
export class ChildPool {
  private readonly live = new Set<EngineChild>();
  private readonly queue: Waiting[] = [];
  private closed = false;

  constructor(private readonly opts: ChildPoolOptions) {
    this.ensureMinimum();
  }

  children(): EngineChild[] {
    return [...this.live];
  }

  run(job: ChildJob): Promise<ChildResult> {
    return new Promise<ChildResult>((resolve, reject) => {
      if (this.closed) return reject(new PoolsClosed());
      if (job.signal.aborted) return reject(job.signal.reason);
      const w: Waiting = { ...job, resolve, reject };
      w.onAbort = () => {
        const i = this.queue.indexOf(w);
        if (i >= 0) {
          this.queue.splice(i, 1);
          reject(job.signal.reason);
          return;
        }
        // Running: the engine is asked to abort, then the child (and what it started) is killed; its exit
        // settles the job.
        for (const child of this.live) if (child.job === w) child.cancel(job.signal.reason);
      };
      job.signal.addEventListener('abort', w.onAbort, { once: true });
      this.queue.push(w);
      this.pump();
    });
  }

  private settle(w: Waiting, fn: () => void): void {
    if (w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
    fn();
  }

  private spawn(): EngineChild {
    const child = new EngineChild(this.opts, (c, how, killedWith) => this.exited(c, how, killedWith), (c, m) => this.message(c, m));
    this.live.add(child);
    return child;
  }

  private ensureMinimum(): void {
    while (!this.closed && this.live.size < this.opts.minChildren) this.spawn();
  }

  /** Gives waiting jobs to idle ready children, starting children (up to the maximum) for the rest. */
  private pump(): void {
    if (this.closed) return;
    while (this.queue.length > 0) {
      const idle = [...this.live].find((c) => c.ready && !c.job && !c.exited);
      if (!idle) break;
      const w = this.queue.shift()!;
      clearTimeout(idle.idleTimer);
      idle.job = w;
      idle.send({ t: 'run', task: w.task });
    }
    const starting = [...this.live].filter((c) => !c.ready).length;
    let want = this.queue.length - starting;
    while (want-- > 0 && this.live.size < this.opts.maxChildren) this.spawn();
  }

  private message(child: EngineChild, m: ChildMessage): void {
    if (m.t === 'ready') {
      child.ready = true;
      this.idle(child);
      return;
    }
    const w = child.job;
    if (!w) return;
    if (m.t === 'result') {
      if (m.taskId !== w.task.taskId) return;
      child.job = undefined;
      this.settle(w, () => w.resolve(m.result));
      if (m.heapUsed > this.opts.recycleHeapBytes) child.kill();
      else this.idle(child);
      return;
    }
    w.onMessage(m, (reply) => child.send(reply));
  }

  /** A child with nothing to do: next job, or an idle timer that ends it (above the minimum). */
  private idle(child: EngineChild): void {
    this.pump();
    if (child.job || child.exited) return;
    clearTimeout(child.idleTimer);
    child.idleTimer = setTimeout(() => {
      if (!child.job && this.live.size > this.opts.minChildren) child.kill();
    }, this.opts.idleMs);
    child.idleTimer.unref();
  }

  private exited(child: EngineChild, how: string, killedWith: unknown): void {
    this.live.delete(child);
    const w = child.job;
    child.job = undefined;
    if (w) {
      const reason = killedWith ?? (this.closed
        ? new PoolsClosed()
        : new RunFailure('ENGINE_CRASHED', `engine process exited: ${how}`, true));
      this.settle(w, () => w.reject(reason));
    } else if (!this.closed && killedWith === undefined) {
      this.opts.onEvent(child.ready ? 'an idle engine process exited' : 'an engine process exited while starting', { family: this.opts.family, pid: child.pid, how });
    }
    if (this.closed) return;
    if (!child.ready && killedWith === undefined) {
      // A child that cannot even start would be replaced for ever: the first waiting job fails instead
      // (its runner's bounded crash retry decides what follows), and the warm minimum waits for real work.
      const next = this.queue.shift();
      if (next) this.settle(next, () => next.reject(new RunFailure('ENGINE_CRASHED', `engine process exited while starting: ${how}`, true)));
      this.pump();
      return;
    }
    this.ensureMinimum();
    this.pump();
  }

  /** Ends every child and its group; jobs waiting or running fail as retryable (the caller hands them back). */
  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.queue.splice(0)) this.settle(w, () => w.reject(new PoolsClosed()));
    const children = [...this.live];
    for (const c of children) c.kill(new PoolsClosed());
    await Promise.all(children.map((c) => c.done));
    // A program that left its child's group before being killed is out of reach; any still in it is not.
    for (const c of children) if (c.pid > 0 && groupAlive(c.pid)) killGroup(c.pid);
  }
}
