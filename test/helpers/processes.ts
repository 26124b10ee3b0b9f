import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { BIN } from './cli.js';
import { blobStoreEnvForTests, knownBlobEnv } from './s3.js';
import { startTestServer, type TestServer } from './server.js';

/** One `atelier serve --role …` child process. */
export interface RoleProcess {
  role: string;
  child: ChildProcess;
  /** http://127.0.0.1:PORT for an API process. */
  url: string | undefined;
  /** The last lines it printed (stdout and stderr), for a failing test's message. */
  tail(): string;
  stop(): Promise<void>;
}

/** A port nobody listens on right now (the child binds it a moment later; loopback only). */
export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/**
 * Spawns `node bin/atelier.mjs serve --role ROLE` and resolves once it has started: by its start line in the
 * log (LOG_LEVEL info unless env says otherwise; its output is read all along), or, with readyBy 'http'
 * (API roles only), by GET /readyz answering 200, so its stdout can go nowhere and cost the parent nothing.
 */
export async function spawnRole(role: 'all' | 'api' | 'worker' | 'deliverer', env: Record<string, string>, opts: { nodeArgs?: string[]; timeoutMs?: number; readyBy?: 'log' | 'http' } = {}): Promise<RoleProcess> {
  const port = role === 'api' || role === 'all' ? await freePort() : 0;
  const byHttp = opts.readyBy === 'http' && port !== 0;
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), BIN, 'serve', '--role', role], {
    env: { ...process.env, LOG_LEVEL: 'info', ATELIER_MODEL_SMOKE_AT_START: '0', ...(env.DATA_DIR ? await blobStoreEnvForTests(env.DATA_DIR, env) : {}), ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', byHttp ? 'ignore' : 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let started = false;
  let onStart: () => void = () => {};
  const startedP = new Promise<void>((resolve) => (onStart = resolve));
  const take = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line) continue;
      lines.push(line);
      if (lines.length > 40) lines.shift();
      if (!started && /"msg":"(listening on|started \(role)/.test(line)) {
        started = true;
        onStart();
      }
    }
  };
  child.stdout?.on('data', take);
  child.stderr!.on('data', take);
  if (byHttp) {
    void (async () => {
      while (!started && child.exitCode === null && child.signalCode === null) {
        const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false);
        if (ok) {
          started = true;
          onStart();
        } else await new Promise((r) => setTimeout(r, 100));
      }
    })();
  }
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const tail = () => lines.join('\n');
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      startedP,
      exited.then(() => { throw new Error(`${role} process exited before starting:\n${tail()}`); }),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${role} process did not start in time:\n${tail()}`)), opts.timeoutMs ?? 90_000))),
    ]);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return {
    role,
    child,
    url: port ? `http://127.0.0.1:${port}` : undefined,
    tail,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/**
 * A second API process (`atelier serve --role api`) on the database and DATA_DIR of an in-process test
 * server: for what must hold across API processes (key cache, rate-limit leases).
 */
export function spawnSecondApi(first: { databaseUrl: string; dataDir: string }): Promise<RoleProcess> {
  return spawnRole('api', { DATABASE_URL: first.databaseUrl, DATA_DIR: first.dataDir, LOG_LEVEL: 'warn' }, { readyBy: 'http' });
}

/**
 * Two API processes on one database and DATA_DIR: `a` in this process (its services can be read and
 * changed directly), `b` a separate `atelier serve --role api`. `close` stops both, `b` first.
 */
export async function twoApis(env: Record<string, string> = {}): Promise<{ a: TestServer; b: RoleProcess; close(): Promise<void> }> {
  const a = await startTestServer(env);
  let b: RoleProcess;
  try {
    b = await spawnSecondApi(a);
  } catch (err) {
    await a.close();
    throw err;
  }
  return {
    a,
    b,
    async close() {
      await b.stop();
      await a.close();
    },
  };
}

/**
 * The environment a sibling process (`atelier serve --role worker|deliverer|…` spawned by a test) needs to
 * join an in-process test server's deployment: its database, its DATA_DIR and the blob store it uses.
 */
export function siblingEnv(srv: { databaseUrl: string; dataDir: string }): Record<string, string> {
  return { ...knownBlobEnv(srv.dataDir), DATABASE_URL: srv.databaseUrl, DATA_DIR: srv.dataDir };
}
