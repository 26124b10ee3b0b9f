import type { CliContext } from '../context.js';
import { MODEL_INPUT_FLAGS, output, parseFlags, SERVER_FLAGS, UsageError } from '../args.js';
import { connect } from '../remote/connection.js';
import { buildInput, kindsFromModelSchema, parseAssignment } from '../remote/inputs.js';
import { readFileRef } from '../remote/files.js';
import { credits } from '../remote/follow.js';

const USAGE = `usage: atelier estimate NODE_TYPE [--input KEY=VALUE …] [--sub-model ID] [--json]
       atelier estimate --workflow SLUG_OR_ID [--json]`;

/** The exact price before running, from the server's own pricing function (`POST …/estimate-credits`). */
export async function estimateCommand(_ctx: CliContext, argv: string[]): Promise<void> {
  const { values, positionals } = parseFlags(argv, { ...MODEL_INPUT_FLAGS, workflow: { type: 'string' }, ...SERVER_FLAGS });
  const json = values.json === true;
  const client = connect(values.url);
  if (values.workflow !== undefined) {
    if (positionals.length || values.input || values['sub-model']) throw new UsageError(USAGE);
    const wf = await client.workflows.get(values.workflow);
    const est = await client.estimates.workflow(wf.nodes.map((n) => ({ type: n.type, subModelId: n.subModelId, data: n.data })));
    const lines = wf.nodes.map((n, i) => `  ${n.id.padEnd(20)} ${n.type.padEnd(24)} ${credits(est.estimates[i]?.microcredits ?? 0)}`);
    return output(json, est, [`${wf.slug ?? wf.id}: ${credits(est.totalMicrocredits)}`, ...lines].join('\n'));
  }
  if (positionals.length !== 1) throw new UsageError(USAGE);
  const nodeType = positionals[0]!;
  const schema = await client.models.schema(values['sub-model'] ?? nodeType);
  const data = buildInput((values.input ?? []).map((w) => parseAssignment(w, '--input')), kindsFromModelSchema(schema), readFileRef);
  const est = await client.estimates.node({ nodeType, subModelId: values['sub-model'], data: data as never });
  return output(json, est, `${schema.modelId}: ${credits(est.totalMicrocredits)}`);
}
