import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Db } from '../../src/db/pool.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { freshDatabase } from '../helpers/db.js';

test('processes migrating together apply each migration exactly once', async () => {
  const database = await freshDatabase();
  const dbs = Array.from({ length: 4 }, () => new Db(database.url, { max: 2 }));
  try {
    const results = await Promise.all(dbs.map((d) => migrate(d)));
    const all = results.flat();
    const expected = loadMigrations().map((m) => m.name);
    assert.deepEqual([...all].sort(), expected, 'every migration applied by exactly one process');
    assert.deepEqual(await migrate(dbs[0]!), [], 'a second run is a no-op');
    const rows = (await dbs[0]!.query('SELECT version FROM schema_migrations ORDER BY version')).rows;
    assert.equal(rows.length, expected.length);
  } finally {
    await Promise.all(dbs.map((d) => d.close()));
    await database.drop();
  }
});
