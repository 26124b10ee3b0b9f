import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Db, queryPrepared } from '../../../src/db/pool.js';
import { countOf, preparedRowOf, preparedRowsOf, rowOf, rowsOf } from '../../../src/db/typed.js';
import { freshDatabase } from '../../helpers/db.js';

// The typed reads answer what the untyped calls they replace answer (issue 27 item 4 made them type-only),
// int8 parsed to bigint as db/pool.ts sets, for plain and prepared statements, on the pool and in a transaction.
describe('typed reads (db/typed.ts)', () => {
  let db: Db;
  let drop: () => Promise<void>;
  const SQL = 'SELECT g AS n, g::bigint * 10 AS big FROM generate_series(1, $1::int) g';

  before(async () => {
    const fresh = await freshDatabase();
    drop = fresh.drop;
    db = new Db(fresh.url, { max: 2 });
  });
  after(async () => {
    await db.close();
    await drop();
  });

  test('rowsOf, rowOf and countOf read what query answers', async () => {
    const plain = await db.query(SQL, [3]);
    assert.deepEqual(await rowsOf<{ n: number; big: bigint }>(db, SQL, [3]), plain.rows);
    assert.deepEqual(await rowOf<{ n: number; big: bigint }>(db, SQL, [3]), { n: 1, big: 10n });
    assert.equal(await rowOf(db, SQL, [0]), undefined);
    assert.equal(await countOf(db, SQL, [3]), plain.rowCount);
  });

  test('preparedRowsOf and preparedRowOf read what queryPrepared answers, on a Db and on a transaction client', async () => {
    const plain = await db.queryPrepared('typed_test', SQL, [2]);
    assert.deepEqual(await preparedRowsOf<{ n: number; big: bigint }>(db, 'typed_test', SQL, [2]), plain.rows);
    assert.deepEqual(await preparedRowOf<{ n: number; big: bigint }>(db, 'typed_test', SQL, [2]), { n: 1, big: 10n });
    assert.equal(await preparedRowOf(db, 'typed_test', SQL, [0]), undefined);
    await db.tx(async (tx) => {
      const inTx = await queryPrepared(tx, 'typed_test', SQL, [2]);
      assert.deepEqual(await preparedRowsOf<{ n: number; big: bigint }>(tx, 'typed_test', SQL, [2]), inTx.rows);
      assert.deepEqual(await preparedRowOf<{ n: number; big: bigint }>(tx, 'typed_test', SQL, [1]), { n: 1, big: 10n });
    });
  });
});
