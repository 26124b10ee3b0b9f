import { test } from 'node:test';
import assert from 'node:assert/strict';
import { literalSql } from '../../src/db/pool.js';

// db/pool.ts literalSql writes a statement's values in for the simple query protocol (a settle's ledger
// statement sent with its COMMIT): every value must stay one literal of the intended type.
test('placeholders become escaped literals: quotes and backslashes in strings, NULL, and $10 apart from $1', () => {
  const sql = literalSql('SELECT $1::text, $2::text, $3::bigint, $10::text, $4', ["it's", 'a\\b', 12n, null, 'e', 'f', 'g', 'h', 'i', 'ten']);
  assert.equal(sql, "SELECT 'it''s'::text,  E'a\\\\b'::text, (12)::bigint, 'ten'::text, NULL");
});

test('a negative number under a minus sign stays a negation, not a comment', () => {
  assert.equal(literalSql('SELECT -$1::bigint', [-5n]), 'SELECT -(-5)::bigint');
  assert.equal(literalSql('SELECT -$1', [-2.5]), 'SELECT -(-2.5)');
});

test('a missing value or a number that is not finite is refused', () => {
  assert.throws(() => literalSql('SELECT $2', ['x']), /no value for \$2/);
  assert.throws(() => literalSql('SELECT $1', [Number.NaN]), /not a finite number/);
});
