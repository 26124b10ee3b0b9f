import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Db, literalSql, withCommit } from '../../src/db/pool.js';
import { freshDatabase } from '../helpers/db.js';

/**
 * db/pool.ts sends a transaction's first statement with its BEGIN, and a settle's statements with COMMIT,
 * by the simple query protocol with their values written as literals. Against a real PostgreSQL: the
 * literals read back exactly what the same values sent as parameters do, and a transaction that uses both
 * commits, rolls back, and sends nothing for a body that ran no statement.
 */
let database: { url: string; drop: () => Promise<void> };
let db: Db;
before(async () => {
  database = await freshDatabase();
  db = new Db(database.url, { max: 2 });
  await db.query('CREATE TABLE t (id int PRIMARY KEY, tags text[], doc jsonb, n bigint, note text)');
});
after(async () => {
  await db.close();
  await database.drop();
});

const asJson = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

test('a literal reads back what a parameter does: arrays, JSON, negated bigints, quotes, backslashes, tabs, accents', async () => {
  const values = [['QUEUED', 'a "b"', 'c\\d', null, "it's"], { a: "it's", b: 'x\\y', c: [1, 'é'] }, -5n, 'tab\there', true, 2.5];
  const sql = 'SELECT $1::text[] AS a, $2::jsonb AS j, -$3::bigint AS n, $4::text AS t, $5::boolean AS b, $6::real AS r';
  const byParams = (await db.query(sql, values)).rows[0];
  const byLiterals = (await db.query(literalSql(sql, values))).rows[0];
  assert.equal(asJson(byLiterals), asJson(byParams));
});

test('a transaction whose first statement went with BEGIN and whose last went with COMMIT commits both; a failure rolls both back', async () => {
  await db.tx(async (tx) => {
    await tx.query('INSERT INTO t (id, tags, doc, n, note) VALUES ($1, $2, $3, $4, $5)', [1, ['x'], { k: 1 }, 10n, "o'k"]);
    assert.equal(withCommit(tx, literalSql('UPDATE t SET n = n + $2 WHERE id = $1', [1, 5n])), true);
  });
  assert.deepEqual((await db.query('SELECT n, note FROM t WHERE id = 1')).rows[0], { n: 15n, note: "o'k" });
  await assert.rejects(db.tx(async (tx) => {
    await tx.query('INSERT INTO t (id) VALUES ($1)', [2]);
    withCommit(tx, literalSql('INSERT INTO t (id) VALUES ($1)', [1])); // a duplicate key: the commit fails
  }), (err: { code?: string }) => err.code === '23505');
  assert.equal((await db.query('SELECT count(*)::int AS n FROM t WHERE id = 2')).rows[0].n, 0, 'the first statement was rolled back with the commit');
  await assert.rejects(db.tx(async (tx) => {
    await tx.query('INSERT INTO t (id) VALUES ($1)', [3]);
    throw new Error('the body failed');
  }), /the body failed/);
  assert.equal((await db.query('SELECT count(*)::int AS n FROM t WHERE id = 3')).rows[0].n, 0);
});

test('a body that runs no statement sends none, and one with only deferred statements sends them in one transaction', async () => {
  assert.equal(await db.tx(async () => 'nothing'), 'nothing');
  await db.tx(async (tx) => {
    withCommit(tx, literalSql('INSERT INTO t (id, note) VALUES ($1, $2)', [4, 'late']));
  });
  assert.equal((await db.query('SELECT note FROM t WHERE id = 4')).rows[0].note, 'late');
  // A value with no literal (a Buffer) still works: BEGIN goes on its own first.
  await db.tx(async (tx) => {
    await tx.query('UPDATE t SET note = encode($2::bytea, \'hex\') WHERE id = $1', [4, Buffer.from('hi')]);
  });
  assert.equal((await db.query('SELECT note FROM t WHERE id = 4')).rows[0].note, '6869');
});
