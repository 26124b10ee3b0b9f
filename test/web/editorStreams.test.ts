import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WebClient } from './webClient.js';
import { openEventStream } from '../helpers/streams.js';

/**
 * Issue 26, finding 9: the editor's event streams ignored the per-key cap: one signed-in session opened
 * 8,000 streams on /editor/runs/:id/events while the /v1 route refused the 26th. Every stream route now
 * goes through the one cap (src/keys/streams.ts), the editor's held by the session; signing out ends them.
 */
let srv: TestServer;
before(async () => {
  srv = await startTestServer({ ATELIER_STREAMS_PER_KEY: '3', ATELIER_STREAM_KEY_CHECK_MS: '200' });
});
after(async () => srv?.close());

const openStream = (url: string, cookie: string) => openEventStream(url, { cookie, accept: 'text/event-stream' });

test('one signed-in session holds at most ATELIER_STREAMS_PER_KEY editor streams; signing out ends them', async () => {
  const u = await srv.user();
  // A workflow run that stays open (no terminal event), so its streams stay open.
  const runId = `run_editorstream${process.pid}`;
  await srv.services.db.query(`INSERT INTO runs (id, account_id, kind, workflow_id, status, input, estimated_microcredits) VALUES ($1, $2, 'workflow', 'wf_none', 'RUNNING', '{}', 0)`, [runId, u.accountId]);
  const web = new WebClient(srv.url);
  assert.equal((await web.signIn(u.email, 'correct horse battery')).status, 303);
  const cookie = [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const url = `${srv.url}/editor/runs/${runId}/events`;

  const open = [openStream(url, cookie), openStream(url, cookie), openStream(url, cookie)];
  for (const s of open) assert.equal((await s.first).status, 200);
  const fourth = await fetch(url, { headers: { cookie, accept: 'text/event-stream' } });
  const body = await fourth.json() as { code: string; message: string };
  assert.equal(fourth.status, 429, JSON.stringify(body));
  assert.equal(body.code, 'RATE_LIMITED');
  assert.match(body.message, /this session already has 3 open event streams/);

  // The /v1 route's streams are the key's, counted apart: the same user's key may still open one.
  const v1 = new AbortController();
  const keyed = await fetch(`${srv.url}/v1/runs/${runId}/events`, { headers: { authorization: `Bearer ${u.key}` }, signal: v1.signal });
  assert.equal(keyed.status, 200);
  v1.abort();

  // Closing one frees its place.
  open[0]!.abort();
  let again: Response | undefined;
  for (let i = 0; i < 200; i++) {
    again = await fetch(url, { headers: { cookie, accept: 'text/event-stream' } });
    if (again.status === 200) break;
    await again.text();
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(again?.status, 200);
  const reopened = again!.body!.getReader();

  // Signing out ends the session's streams with a final error event, as a revoked key's do.
  const csrf = await web.csrf('/runs');
  await web.post('/logout', { _csrf: csrf });
  const ended = await Promise.all(open.slice(1).map((s) => s.text));
  for (const text of ended) assert.match(text, /event: error\ndata: .*"code":"UNAUTHORIZED"/);
  await reopened.cancel();
});
