import type { TestServer } from './server.js';

/** Polls a run until it reaches one of the statuses (or fails the test after `timeoutMs`). */
export async function waitForStatus(srv: TestServer, key: string, path: string, statuses: string[], timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    last = await srv.request('GET', path, { key });
    if (statuses.includes(last.body?.status)) return last.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${path} did not reach ${statuses.join('/')} in ${timeoutMs} ms; last: ${JSON.stringify(last?.body).slice(0, 500)}`);
}

export async function balance(srv: TestServer, key: string): Promise<{ availableBalance: number; reservedMicrocredits: number }> {
  return (await srv.request('GET', '/v1/credits/balance', { key })).body;
}

/**
 * Polls `check` until it holds, failing after `timeoutMs` with what was awaited (no duration is asserted).
 * `explain`, when given, adds to the failure what usually says why (the tail of a child's log, say).
 */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000, explain?: () => string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) {
      const why = explain?.();
      throw new Error(`timed out waiting for ${what}${why ? `\n${why}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Whether a process with this id is still running. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
