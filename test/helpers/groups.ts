import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { BIN } from './cli.js';
import { freePort } from './processes.js';

/**
 * `atelier serve` started as a terminal or systemd starts it: leading a process group of its own
 * (spawned detached), so a test can signal the whole group (`kill -- -PGID`, what Ctrl-C and systemd's
 * default KillMode do). Its environment carries a mark every process it starts inherits (engine
 * children, ffmpeg, the embedded PostgreSQL), so a test finds whatever it left behind.
 */
export interface GroupLeader {
  child: ChildProcess;
  pid: number;
  mark: string;
  url: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when the start line is printed (rejects if it exits first). */
  listening: Promise<void>;
  /** Signal to the whole process group. */
  signalGroup(signal: NodeJS.Signals): void;
}

export async function serveAsGroupLeader(env: Record<string, string>, args: string[] = []): Promise<GroupLeader> {
  const mark = crypto.randomUUID();
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    env: { ...process.env, LOG_LEVEL: 'info', ATELIER_MODEL_SMOKE_AT_START: '0', ...env, PORT: String(port), HOST: '127.0.0.1', ATELIER_TEST_MARK: mark },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const listening = new Promise<void>((resolve, reject) => {
    const check = () => {
      if (/"msg":"listening on/.test(out)) resolve();
    };
    child.stdout!.on('data', check);
    child.on('close', () => reject(new Error(`exited before listening:\n${out.slice(-3000)}`)));
  });
  listening.catch(() => {});
  return {
    child, pid: child.pid!, mark, url: `http://127.0.0.1:${port}`, output: () => out, exited, listening,
    signalGroup: (signal) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // the group is gone already
      }
    },
  };
}

/** Processes (other than zombies) whose environment carries the mark: everything a served process started and left. */
export function processesMarked(mark: string): Array<{ pid: number; cmd: string }> {
  const needle = Buffer.from(`ATELIER_TEST_MARK=${mark}\0`);
  const found: Array<{ pid: number; cmd: string }> = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!fs.readFileSync(`/proc/${name}/environ`).includes(needle)) continue;
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') continue;
      found.push({ pid: Number(name), cmd: fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').slice(0, 200) });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** Kills whatever a failed test left behind (by mark). */
export function killMarked(mark: string): void {
  for (const p of processesMarked(mark)) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}
