import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cachedOutput, storeCachedOutput } from '../../src/workflows/nodeCache.js';
import { freshDatabase } from '../helpers/db.js';
import { openDatabase, type Database } from '../../src/db/connect.js';
import { loadConfig } from '../../src/config.js';

// The workflow node cache on a database of its own (no server): lookup by account and key, and an entry whose
// file is gone is not used. Through the API: test/api/workflowCache.test.ts.

let database: Database;
let drop: () => Promise<void>;
before(async () => {
  const fresh = await freshDatabase();
  drop = fresh.drop;
  database = await openDatabase(loadConfig({ DATABASE_URL: fresh.url }), { poolSize: 2 });
});
after(async () => {
  await database.close();
  await drop();
});

test('node cache: stored outputs are found by account and key, and not once a file they refer to is gone', async () => {
  const db = database.db;
  const account = (await db.query(`INSERT INTO accounts (id, kind, name) VALUES ('acc_cache_test', 'user', 'Cache') RETURNING id`)).rows[0].id as string;
  await storeCachedOutput(db, { accountId: account, key: 'k1', nodeType: 'word_count', output: { output: 'x' }, workflowId: null, runId: 'run_x' });
  assert.deepEqual(await cachedOutput(db, account, 'k1'), { output: 'x' });
  assert.equal(await cachedOutput(db, account, 'k2'), undefined);
  await storeCachedOutput(db, { accountId: account, key: 'k3', nodeType: 'resize_image', output: { result: [{ file: 'file_missing' }] }, workflowId: null, runId: 'run_x' });
  assert.equal(await cachedOutput(db, account, 'k3'), undefined, 'an entry whose file is gone is not used');
});
