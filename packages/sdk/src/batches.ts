import { runHeaders } from './runHeaders.js';
import type { Transport } from './transport.js';
import type { Batch, CreateBatchParams } from './types-runs.js';

const seg = encodeURIComponent;

/** Batch runs: N inputs of one model, one hold for the whole price, one run each, one batch record. */
export class BatchesApi {
  constructor(private readonly t: Transport) {}

  /** Starts the batch (202); its `runs` name each input's run. Sent with an Idempotency-Key (generated when omitted), so a retry cannot start a second batch. */
  create(nodeType: string, params: CreateBatchParams): Promise<Batch> {
    return this.t.request('POST', `/v1/nodes/${seg(nodeType)}/batch`, {
      body: { inputs: params.inputs, subModelId: params.subModelId, webhook: params.webhook, priority: params.priority },
      headers: runHeaders({ idempotencyKey: params.idempotencyKey }),
    });
  }

  /** The batch's progress, charges and runs. */
  get(batchId: string): Promise<Batch> {
    return this.t.request('GET', `/v1/batches/${seg(batchId)}`);
  }

  /** Cancels the runs not yet ended (each refunded); cancelling twice is harmless, so it is retried like a read. */
  cancel(batchId: string): Promise<Batch> {
    return this.t.request('POST', `/v1/batches/${seg(batchId)}/cancel`, { idempotent: true });
  }
}
