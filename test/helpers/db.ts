import crypto from 'node:crypto';
import pg from 'pg';

/** A fresh, empty database on the test server for one test file; dropped by the returned function. */
export async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = process.env.ATELIER_TEST_ADMIN_URL;
  if (!admin) throw new Error('run tests through `npm test` (it finds a PostgreSQL and sets ATELIER_TEST_ADMIN_URL)');
  return createDatabase(admin, 'atelier_t_');
}

/** Creates an empty database named `prefix` + random hex on the server at `admin` (tests and the bench share it). */
export async function createDatabase(admin: string, prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}${crypto.randomBytes(6).toString('hex')}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    },
  };
}
