import { test } from 'node:test';
import assert from 'node:assert/strict';
import { literalSql, tryLiteralSql } from '../../src/db/pool.js';

// db/pool.ts writes a statement's values in as literals for the simple query protocol (a transaction's
// first statement sent with BEGIN, a settle's statements sent with COMMIT): each value must become the one
// quoted literal node-postgres would have sent as a text parameter, so its type resolves the same way.
test('placeholders become quoted literals: quotes and backslashes in strings, NULL, and $10 apart from $1', () => {
  const sql = literalSql('SELECT $1::text, $2::text, $3::bigint, $10::text, $4', ["it's", 'a\\b', 12n, null, 'e', 'f', 'g', 'h', 'i', 'ten']);
  assert.equal(sql, "SELECT 'it''s'::text,  E'a\\\\b'::text, '12'::bigint, 'ten'::text, NULL");
});

test('numbers stay quoted, so a negative one under a minus sign is a negation, not a comment', () => {
  assert.equal(literalSql('SELECT -$1::bigint', [-5n]), "SELECT -'-5'::bigint");
  assert.equal(literalSql('SELECT $1::real, $2::boolean', [-2.5, true]), "SELECT '-2.5'::real, 'true'::boolean");
});

test('arrays as PostgreSQL array text, plain objects as JSON', () => {
  assert.equal(literalSql('SELECT $1::text[]', [['QUEUED', 'a "b"', null]]), `SELECT  E'{"QUEUED","a \\\\"b\\\\"",NULL}'::text[]`);
  assert.equal(literalSql('SELECT $1::jsonb', [{ a: "it's" }]), `SELECT '{"a":"it''s"}'::jsonb`);
});

test('a value with no literal here leaves the statement to parameters: a NUL, a Buffer, a Date, a nested array, a number that is not finite', () => {
  for (const v of ['a\0b', Buffer.from('x'), new Date(0), [[1]], Number.NaN, ['a\0']]) assert.equal(tryLiteralSql('SELECT $1', [v]), undefined);
  assert.throws(() => literalSql('SELECT $1', [Buffer.from('x')]), /no SQL literal/);
});

test('a placeholder with no value is refused', () => {
  assert.throws(() => literalSql('SELECT $2', ['x']), /no value for \$2/);
});
