import { execFileSync, spawnSync } from 'node:child_process';

/**
 * Linux network namespaces joined by veth pairs to one bridge: separate "hosts" on one machine, each with its
 * own network stack (its own loopback, its own address), reachable only over the virtual network. Nothing is
 * added to the machine's own (root) namespace: the bridge lives in the first host's namespace.
 */
export interface VirtualHosts {
  /** Namespace name per host. */
  ns: Record<string, string>;
  /** Address per host on the virtual network (10.77.0.0/24). */
  addr: Record<string, string>;
  /** Kills every process left in the namespaces (only ours: nothing else runs in them) and deletes them. */
  destroy(): void;
}

/** Why namespaces cannot be made here, or undefined when they can (root and iproute2's `ip`). */
export function netnsUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces are Linux only';
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return 'making network namespaces needs root (run the suite as root, or in CI with sudo)';
  const ip = spawnSync('ip', ['-V'], { encoding: 'utf8' });
  if (ip.status !== 0) return 'iproute2\'s `ip` command is not installed (apt-get install iproute2)';
  return undefined;
}

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export function killNamespace(ns: string): void {
  const pids = spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' }).stdout?.split(/\s+/).filter(Boolean).map(Number) ?? [];
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * Makes hosts `names[0]` (holding the bridge, 10.77.0.1), `names[1]` (10.77.0.2)… Throws with the `ip` error
 * when the kernel refuses (e.g. a container without CAP_SYS_ADMIN); whatever was made is removed first.
 */
export function makeHosts(names: string[]): VirtualHosts {
  const tag = `at${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
  const ns: Record<string, string> = {};
  const addr: Record<string, string> = {};
  names.forEach((n, i) => {
    ns[n] = `${tag}-${n}`;
    addr[n] = `10.77.0.${i + 1}`;
  });
  const made: string[] = [];
  const destroy = () => {
    for (const n of made) killNamespace(n);
    for (const n of made) spawnSync('ip', ['netns', 'del', n]);
    made.length = 0;
  };
  try {
    for (const n of names) {
      ip('netns', 'add', ns[n]!);
      made.push(ns[n]!);
      ip('-n', ns[n]!, 'link', 'set', 'lo', 'up');
    }
    const hub = ns[names[0]!]!;
    ip('-n', hub, 'link', 'add', 'br0', 'type', 'bridge');
    ip('-n', hub, 'addr', 'add', `${addr[names[0]!]}/24`, 'dev', 'br0');
    ip('-n', hub, 'link', 'set', 'br0', 'up');
    names.slice(1).forEach((n, i) => {
      const port = `v${i + 1}`;
      ip('-n', ns[n]!, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', port, 'netns', hub);
      ip('-n', hub, 'link', 'set', port, 'master', 'br0');
      ip('-n', hub, 'link', 'set', port, 'up');
      ip('-n', ns[n]!, 'addr', 'add', `${addr[n]}/24`, 'dev', 'eth0');
      ip('-n', ns[n]!, 'link', 'set', 'eth0', 'up');
    });
  } catch (err) {
    destroy();
    const e = err as { stderr?: Buffer; message: string };
    throw new Error(`cannot make network namespaces: ${e.stderr?.toString().trim() || e.message}`);
  }
  return { ns, addr, destroy };
}
