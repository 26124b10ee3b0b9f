import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Issue 27: keyset cursors are exact. PostgreSQL stores microseconds; a cursor cut to a JavaScript Date's
// milliseconds skipped the rows whose time lay inside the last shown row's millisecond.
let srv: TestServer;
before(async () => {
  srv = await startTestServer({}, { role: 'api' });
});
after(async () => {
  await srv.close();
});

test('paging through runs created within one millisecond shows every run once', async () => {
  const u = await srv.user({ microcredits: 10_000n });
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await srv.request('POST', '/v1/nodes/word_count/run', { key: u.key, body: { input: { text: `run ${i}` } } });
    assert.equal(r.status, 202, r.text);
    ids.push(r.body.runId);
  }
  // Four distinct times inside one millisecond, the newest first in the list.
  for (const [i, id] of ids.entries()) {
    await srv.services.db.query(`UPDATE runs SET created_at = '2026-01-02T03:04:05.123100Z'::timestamptz + make_interval(secs => $2::double precision / 1000000) WHERE id = $1`, [id, i * 100]);
  }
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 10; page++) {
    const r = await srv.request('GET', `/v1/nodes/runs?limit=1${cursor ? `&cursor=${cursor}` : ''}`, { key: u.key });
    assert.equal(r.status, 200, r.text);
    seen.push(...r.body.items.map((x: { id: string }) => x.id));
    cursor = r.body.nextCursor;
    if (!cursor) break;
  }
  assert.deepEqual(seen, [...ids].reverse());
});

test('a cursor issued before, at millisecond precision, is still accepted', async () => {
  const u = await srv.user({ microcredits: 10_000n });
  const old = Buffer.from(JSON.stringify([new Date().toISOString(), 'run_zzzz'])).toString('base64url');
  const r = await srv.request('GET', `/v1/nodes/runs?limit=1&cursor=${old}`, { key: u.key });
  assert.equal(r.status, 200, r.text);
});
