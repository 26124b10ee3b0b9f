import { RunHandle } from './runHandle.js';
import { runHeaders } from './runHeaders.js';
import { parseEventStream } from './sse.js';
import type { Transport } from './transport.js';
import type { Page, PageQuery } from './types-common.js';
import type { NodeRun, RunCreated, RunModelParams, RunStreamEvent } from './types-runs.js';

const seg = encodeURIComponent;

/** Standalone model runs. */
export class NodeRunsApi {
  constructor(private readonly t: Transport) {}

  /** Starts a run (202) and returns a handle whose `wait()` polls it to the end. */
  async run(nodeType: string, params: RunModelParams): Promise<RunHandle<NodeRun>> {
    const created = await this.t.request<RunCreated>('POST', `/v1/nodes/${seg(nodeType)}/run`, {
      body: { subModelId: params.subModelId, input: params.input, webhook: params.webhook, ...(params.priority === undefined ? {} : { priority: params.priority }) },
      headers: runHeaders(params),
    });
    return new RunHandle(created.runId, created.status, created.estimatedCredits, () => this.get(created.runId), () => this.cancel(created.runId));
  }

  get(runId: string): Promise<NodeRun> {
    return this.t.request('GET', `/v1/nodes/runs/${seg(runId)}`);
  }

  list(q: PageQuery = {}): Promise<Page<NodeRun>> {
    return this.t.request('GET', '/v1/nodes/runs', { query: { ...q } });
  }

  /** Cancelling twice is harmless, so it is retried like a read. */
  cancel(runId: string): Promise<NodeRun> {
    return this.t.request('POST', `/v1/nodes/runs/${seg(runId)}/cancel`, { idempotent: true });
  }

  /** Server-Sent Events of the run (the webhook payloads), ending after its final event. */
  async *events(runId: string, opts: { lastEventId?: string } = {}): AsyncGenerator<RunStreamEvent> {
    yield* streamEvents(this.t, `/v1/nodes/runs/${seg(runId)}/events`, opts.lastEventId);
  }
}

export async function* streamEvents(t: Transport, path: string, lastEventId?: string): AsyncGenerator<RunStreamEvent> {
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  const res = await t.request<Response>('GET', path, { headers, raw: true, noTimeout: true });
  if (!res.body) return;
  yield* parseEventStream(res.body);
}
