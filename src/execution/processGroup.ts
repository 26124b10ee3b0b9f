import fs from 'node:fs';

/**
 * Process groups of engine children. Every engine child leads a group of its own (spawned detached), and
 * the programs it starts (ffmpeg, pocketsphinx, espeak) inherit that group: so a signal to the service's
 * group (Ctrl-C in a terminal, `kill -- -PGID`) never reaches them, and the supervisor ends a child and
 * everything it started with one signal to the group.
 */

/** Sends `signal` to every process of the group `pgid`; false when the group is gone. */
export function killGroup(pgid: number, signal: NodeJS.Signals = 'SIGKILL'): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Whether any process of the group `pgid` still exists. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const HAS_PROC = fs.existsSync('/proc/self/stat');

/**
 * Resident memory (bytes) of each of the given process groups, summed over their members, read from
 * /proc (Linux): `/proc/PID/stat` names a process's group, `/proc/PID/status` its VmRSS. Groups not found
 * are absent from the map; off Linux the map is empty (no resident cap there, only the heap limit).
 */
export function groupResidentBytes(pgids: Iterable<number>): Map<number, number> {
  const wanted = new Set(pgids);
  const out = new Map<number, number>();
  if (!HAS_PROC || wanted.size === 0) return out;
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    let pgrp: number;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces: fields are counted after its last ')'.
      pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    } catch {
      continue; // exited meanwhile
    }
    if (!wanted.has(pgrp)) continue;
    try {
      const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${name}/status`, 'utf8'))?.[1] ?? 0);
      out.set(pgrp, (out.get(pgrp) ?? 0) + kb * 1024);
    } catch {
      // exited meanwhile
    }
  }
  return out;
}
