// runs/runEndWatch.ts: a Prefer: wait may skip its first read of the run only while this process has heard
// every run end since the run was created (same LISTEN connection); a lost connection withdraws that.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { CHANNELS, Notifier } from '../../src/db/notifier.js';
import { RunEndWatch } from '../../src/runs/runEndWatch.js';
import { freshDatabase } from '../helpers/db.js';
import { until } from '../helpers/poll.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let database: Awaited<ReturnType<typeof freshDatabase>>;
let notifier: Notifier;
let client: pg.Client;
let srv: TestServer;

before(async () => {
  database = await freshDatabase();
  notifier = new Notifier(database.url);
  await notifier.start();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  srv = await startTestServer();
});

after(async () => {
  await srv.close();
  await client.end();
  await notifier.stop();
  await database.drop();
});

test('a mark vouches for the run ends heard since it was taken, until the LISTEN connection is lost', async () => {
  const watch = new RunEndWatch(notifier);
  assert.equal(watch.mark(), undefined, 'not yet listening: no mark, the wait reads the run');
  await until('the watch listening', async () => watch.mark() !== undefined, 10_000);
  const mark = watch.mark();
  assert.ok(watch.current(mark));
  assert.equal(watch.has('run-a'), false);
  await client.query(`SELECT pg_notify($1, 'run-a')`, [CHANNELS.runEnded]);
  await until('the end heard', async () => watch.has('run-a'), 10_000);
  assert.equal(watch.current(undefined), false, 'no mark (a replay) vouches for nothing');
  // The LISTEN connection dies: ends in between may be lost, so the old mark no longer vouches.
  await client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'atelier:%:listen'`);
  await until('the loss noticed', async () => !watch.current(mark), 10_000);
  await until('listening again', async () => notifier.listening, 20_000);
  assert.equal(watch.current(mark), false);
  assert.ok(watch.current(watch.mark()), 'a mark taken after the reconnect vouches again');
});

test('Prefer: wait answers with the run as GET shows it, for new runs and for a replay of an ended one', async () => {
  const u = await srv.user();
  const body = { subModelId: 'sfxr-laser-shoot', input: { seed: 11 } };
  for (let i = 0; i < 3; i++) {
    const r = await srv.request('POST', '/v1/nodes/sfxr_sound_effects/run', { key: u.key, body: { ...body, input: { seed: 11 + i } }, headers: { prefer: 'wait=30' } });
    assert.equal(r.status, 200, r.text);
    const got = (await srv.request('GET', `/v1/nodes/runs/${r.body.runId}`, { key: u.key })).body;
    // A file's URL is signed when the answer is written, so its expiry moves with the second it was read in.
    const same = (run: any) => ({ ...run, runId: undefined, output: undefined, files: run.files.map((f: any) => ({ ...f, url: String(f.url).replace(/\?.*$/, '') })) });
    assert.deepEqual(same(r.body), same(got));
  }
  const first = await srv.request('POST', '/v1/nodes/sfxr_sound_effects/run', { key: u.key, body, headers: { prefer: 'wait=30', 'idempotency-key': 'end-watch-1' } });
  assert.equal(first.status, 200, first.text);
  const again = await srv.request('POST', '/v1/nodes/sfxr_sound_effects/run', { key: u.key, body, headers: { prefer: 'wait=30', 'idempotency-key': 'end-watch-1' } });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.body.id, first.body.id);
  assert.equal(again.body.status, 'COMPLETED');
});
