import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeHosts, netnsUnavailable } from '../hosts/netns.js';

// Issue #21 item 3: three hosts on one machine (Linux network namespaces joined by veth pairs to a bridge) —
// an API host and two worker hosts — sharing only PostgreSQL and an S3 server, which run on a fourth
// namespace (the shared-services host). The scenario itself runs inside that namespace: test/hosts/driver.ts.
// All traffic stays on the virtual network and the namespaces' own loopbacks.
const DRIVER = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'hosts', 'driver.ts');
const why = netnsUnavailable();

test('runs and workflows submitted to an API host complete on two worker hosts sharing only PostgreSQL and S3; one host killed mid-run loses nothing', { skip: why ? `skipped: ${why}` : false, timeout: 600_000 }, async (t) => {
  let hosts;
  try {
    hosts = makeHosts(['svc', 'api', 'w1', 'w2']);
  } catch (err) {
    t.skip(`skipped: ${(err as Error).message}`);
    return;
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-hosts-'));
  fs.chmodSync(work, 0o755);
  try {
    const child = spawn('ip', ['netns', 'exec', hosts.ns.svc!, process.execPath, '--import', 'tsx', DRIVER], {
      env: { ...process.env, HOSTS_NS: JSON.stringify(hosts.ns), HOSTS_ADDR: JSON.stringify(hosts.addr), HOSTS_WORK: work },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      process.stdout.write(`# ${d.toString().trimEnd().split('\n').join('\n# ')}\n`);
    });
    child.stderr!.on('data', (d) => (out += d));
    const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
    assert.equal(code, 0, out.slice(-8000));
    assert.match(out, /^RESULT /m);
  } finally {
    hosts.destroy();
    fs.rmSync(work, { recursive: true, force: true });
  }
});
