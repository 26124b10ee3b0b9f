import type { CliContext } from '../context.js';
import { MODEL_INPUT_FLAGS, output, parseFlags, RUN_FLAGS, UsageError } from '../args.js';
import { connect } from '../remote/connection.js';
import { buildInput, kindsFromModelSchema, parseAssignment } from '../remote/inputs.js';
import { fileRefs } from '../remote/files.js';
import { saveOutputs, saveText } from '../remote/download.js';
import { credits, durationOf, follow } from '../remote/follow.js';
import type { NodeRun } from '../../../packages/sdk/src/types-runs.js';

const USAGE = 'usage: atelier run NODE_TYPE [--input KEY=VALUE …] [--sub-model ID] [--wait] [--out DIR] [--cancel-after 5m] [--json]';

/** `atelier run NODE_TYPE --input k=v …`: starts a model run on the server at ATELIER_URL, optionally follows it and saves its files. */
export async function runCommand(_ctx: CliContext, argv: string[]): Promise<void> {
  const { values, positionals } = parseFlags(argv, { ...MODEL_INPUT_FLAGS, ...RUN_FLAGS });
  if (positionals.length !== 1) throw new UsageError(USAGE);
  const nodeType = positionals[0]!;
  const json = values.json === true;
  const outDir = values.out;
  const wait = values.wait === true || outDir !== undefined;
  const client = connect(values.url);

  const assignments = (values.input ?? []).map((w) => parseAssignment(w, '--input'));
  const schema = await client.models.schema(values['sub-model'] ?? nodeType);
  // Large @path media files are uploaded first (POST /v1/files) and passed by URL.
  const refs = fileRefs(client);
  const input = await refs.resolve(buildInput(assignments, kindsFromModelSchema(schema), refs.read));
  const handle = await client.runModel(nodeType, {
    subModelId: values['sub-model'] ?? undefined,
    input: input as never,
    cancelAfter: values['cancel-after'],
    idempotencyKey: values['idempotency-key'],
  });
  if (!wait) {
    return output(json, { runId: handle.runId, status: handle.status, estimatedCredits: handle.estimatedCredits },
      `${handle.runId} ${handle.status} (estimated ${credits(handle.estimatedCredits)})`);
  }

  const run = await follow(handle, `${handle.runId} ${nodeType}`);
  const saved = outDir !== undefined && run.status === 'COMPLETED' ? await saveRun(client, run, outDir) : [];
  output(json, { ...run, savedFiles: saved }, report(run, saved));
  if (run.status !== 'COMPLETED') process.exitCode = 1;
}

/** A run's text output: `output` (Atelier's text models) or `text` (hosted utilities such as document_ocr). */
function textOf(run: NodeRun): unknown {
  return run.output?.output ?? run.output?.text;
}

async function saveRun(client: ReturnType<typeof connect>, run: NodeRun, dir: string): Promise<string[]> {
  const saved = await saveOutputs(client, run.files.map((f, i) => ({ url: f.url, filename: f.filename, stem: `${run.id}-${i + 1}` })), dir);
  const text = textOf(run);
  if (typeof text === 'string' && run.files.length === 0) saved.push(saveText(dir, run.id, text));
  return saved;
}

function report(run: NodeRun, saved: string[]): string {
  const lines = [`${run.id} ${run.status} in ${durationOf(run) || '?'}, charged ${credits(run.creditUsed)}`];
  if (run.status !== 'COMPLETED') {
    lines.push(`error: ${run.userMessage ?? run.error ?? 'no reason given'}`);
    return lines.join('\n');
  }
  const text = textOf(run);
  if (typeof text === 'string' && saved.length === 0) lines.push('', text);
  else if (run.output && typeof text !== 'string' && run.files.length === 0) lines.push('', JSON.stringify(run.output, null, 2));
  if (saved.length) lines.push(...saved.map((p) => `saved ${p}`));
  else for (const f of run.files) lines.push(`${f.contentType} ${f.bytes} bytes ${f.url}`);
  return lines.join('\n');
}
