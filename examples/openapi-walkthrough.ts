/**
 * The README's walkthrough with a client generated from the OpenAPI document alone: openapi-typescript's
 * types (packages/sdk/src/generated/openapi.ts) and openapi-fetch. It compiles under --strict with no
 * casts, which is the check that the document describes every request and response fully;
 * test/api/openapiTools.test.ts runs it against a live server.
 *
 *   ATELIER_API_KEY=gx_… node --import tsx examples/openapi-walkthrough.ts [http://127.0.0.1:8080]
 */
import createClient from 'openapi-fetch';
import type { paths } from '../packages/sdk/src/generated/openapi.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface WalkthroughResult {
  balance: number;
  estimate: number;
  modelRun: { runId: string; status: string; creditUsed: number; fileUrl: string; fileBytes: number };
  workflowRun: { runId: string; status: string; actualCredits: number; outputs: string[] };
}

export async function walkthrough(baseUrl: string, apiKey: string): Promise<WalkthroughResult> {
  const api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${apiKey}` } });
  const fail = (what: string, error: { code: string; message: string } | undefined): never => {
    throw new Error(`${what}: ${error ? `${error.code} ${error.message}` : 'no answer'}`);
  };

  const { data: balance, error: balanceError } = await api.GET('/v1/credits/balance');
  if (!balance) return fail('balance', balanceError);

  // 1. discover
  const { data: found } = await api.GET('/v1/models/search', { params: { query: { query: 'text-to-speech' } } });
  const tts = found?.modelCatalog?.['text-to-speech']?.find((m) => m.nodeType === 'espeak_tts');
  if (!tts) throw new Error('espeak_tts is not in the text-to-speech category');
  const { data: schema } = await api.GET('/v1/models/{modelId}/schema', { params: { path: { modelId: tts.modelId } } });
  if (!schema?.fields.some((f) => f.name === 'text' && f.required)) throw new Error('espeak_tts takes a required text field');
  const { data: pricing } = await api.GET('/v1/models/{modelId}/pricing', { params: { path: { modelId: tts.modelId } } });
  if (!pricing) throw new Error('no pricing');

  // 2. the exact cost
  const input = { text: 'Hello from Atelier.' };
  const { data: estimate, error: estimateError } = await api.POST('/v1/nodes/estimate-credits', { body: { nodeType: 'espeak_tts', data: input } });
  if (!estimate) return fail('estimate', estimateError);

  // 3. run it (202 with the run id), 4. poll, 5. download the artifact without the key
  const { data: created, error: createError } = await api.POST('/v1/nodes/{nodeType}/run', {
    params: { path: { nodeType: 'espeak_tts' }, header: { 'idempotency-key': `walkthrough-${Date.now()}` } },
    body: { input },
  });
  if (!created) return fail('run', createError);
  let run = (await api.GET('/v1/nodes/runs/{runId}', { params: { path: { runId: created.runId } } })).data;
  for (let i = 0; i < 1200 && run && (run.status === 'QUEUED' || run.status === 'RUNNING'); i++) {
    await sleep(100);
    run = (await api.GET('/v1/nodes/runs/{runId}', { params: { path: { runId: created.runId } } })).data;
  }
  const file = run?.files[0];
  if (!run || !file) throw new Error(`the run ended ${run?.status} without a file: ${run?.error}`);
  const wav = await fetch(file.url);
  const fileBytes = (await wav.arrayBuffer()).byteLength;

  // Workflows: Request → espeak_tts → waveform_video → Response
  const { data: wf, error: wfError } = await api.POST('/v1/workflows/quick-create', { body: { name: 'Speech video', requestFields: [{ name: 'text', type: 'text' }] } });
  if (!wf) return fail('quick-create', wfError);
  const workflowPath = { params: { path: { id: wf.id } } };
  const { data: speech } = await api.POST('/v1/workflows/{id}/nodes', { ...workflowPath, body: { nodeType: 'espeak_tts', column: 1 } });
  const { data: video } = await api.POST('/v1/workflows/{id}/nodes', { ...workflowPath, body: { nodeType: 'waveform_video', column: 2 } });
  if (!speech || !video) throw new Error('adding nodes failed');
  const edges: Array<[string, string, string, string]> = [
    [wf.requestNodeId, 'text', speech.nodeId, 'in:text'],
    [speech.nodeId, 'out:result', video.nodeId, 'in:audio_url'],
    [video.nodeId, 'out:result', wf.responseNodeId, 'result'],
  ];
  for (const [sourceNodeId, sourceHandle, targetNodeId, targetHandle] of edges) {
    const { error } = await api.POST('/v1/workflows/{id}/edges', { ...workflowPath, body: { sourceNodeId, sourceHandle, targetNodeId, targetHandle } });
    if (error) return fail('edge', error);
  }
  const { data: started, error: startError } = await api.POST('/v1/runs', { body: { workflowId: wf.id, values: { [wf.requestNodeId]: { text: 'Hello' } } } });
  if (!started) return fail('workflow run', startError);
  let wfRun = (await api.GET('/v1/runs/{runId}', { params: { path: { runId: started.runId } } })).data;
  for (let i = 0; i < 1800 && wfRun && (wfRun.status === 'QUEUED' || wfRun.status === 'RUNNING'); i++) {
    await sleep(100);
    wfRun = (await api.GET('/v1/runs/{runId}', { params: { path: { runId: started.runId }, query: { inDetails: false } } })).data;
  }
  if (!wfRun) throw new Error('the workflow run went missing');
  const outputs = Object.values(wfRun.outputs).flatMap((handles) => Object.values(handles)).flat().filter((u): u is string => typeof u === 'string');

  return {
    balance: balance.availableBalance,
    estimate: estimate.totalMicrocredits,
    modelRun: { runId: run.id, status: run.status, creditUsed: run.creditUsed, fileUrl: file.url, fileBytes },
    workflowRun: { runId: wfRun.id, status: wfRun.status, actualCredits: wfRun.actualCredits, outputs },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const key = process.env.ATELIER_API_KEY;
  if (!key) throw new Error('set ATELIER_API_KEY');
  console.log(JSON.stringify(await walkthrough(process.argv[2] ?? 'http://127.0.0.1:8080', key), null, 2));
}
