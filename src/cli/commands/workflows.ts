import type { CliContext } from '../context.js';
import { output, parseFlags, RUN_FLAGS, UsageError } from '../args.js';
import { connect } from '../remote/connection.js';
import { buildInput, kindsFromRequestFields, parseAssignment, type Assignment, type FileRef } from '../remote/inputs.js';
import { fileRefs } from '../remote/files.js';
import { fileUrlsIn, saveOutputs } from '../remote/download.js';
import { credits, durationOf, follow } from '../remote/follow.js';
import type { Workflow } from '../../../packages/sdk/src/types-workflows.js';
import type { WorkflowRun } from '../../../packages/sdk/src/types-runs.js';

const USAGE = `usage: atelier workflows list [--json]
       atelier workflows run SLUG_OR_ID [--value [NODE.]FIELD=VALUE …] [--wait] [--out DIR] [--cancel-after 5m] [--json]`;

/** `atelier workflows list|run` against the server at ATELIER_URL. */
export async function workflowsCommand(_ctx: CliContext, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseFlags(rest, { value: { type: 'string', multiple: true, short: 'v' }, ...RUN_FLAGS });
  const json = values.json === true;
  if (sub === 'list' && positionals.length === 0) {
    const client = connect(values.url);
    const [system, own] = await Promise.all([client.systemWorkflows(), client.workflows.list({ limit: 100 })]);
    const rows = [
      ...system.items.map((w) => `${w.slug.padEnd(22)} system  ${w.name} — ${w.description}`),
      ...own.items.map((w) => `${w.id.padEnd(22)} yours   ${w.name}`),
    ];
    return output(json, { system: system.items, workflows: own.items }, rows.join('\n') || 'no workflows');
  }
  if (sub !== 'run' || positionals.length !== 1) throw new UsageError(USAGE);

  const client = connect(values.url);
  const workflow = await client.workflows.get(positionals[0]!);
  // Large @path media files are uploaded first (POST /v1/files) and passed by URL.
  const refs = fileRefs(client);
  const requestValues = await refs.resolve(valuesFor(workflow, (values.value ?? []).map((w) => parseAssignment(w, '--value')), refs.read));
  const outDir = values.out;
  const handle = await client.runWorkflow(positionals[0]!, {
    values: requestValues as never,
    cancelAfter: values['cancel-after'],
    idempotencyKey: values['idempotency-key'],
  });
  if (values.wait !== true && outDir === undefined) {
    return output(json, { runId: handle.runId, status: handle.status, estimatedCredits: handle.estimatedCredits },
      `${handle.runId} ${handle.status} (estimated ${credits(handle.estimatedCredits)})`);
  }

  const seen = new Map<string, string>();
  const run = await follow(handle, `${handle.runId} ${workflow.slug ?? workflow.id}`, (r, line) => {
    for (const n of r.nodeRuns) {
      const shown = `${n.status}${n.cached ? ' (cached)' : ''}`;
      if (seen.get(n.nodeId) === shown) continue;
      seen.set(n.nodeId, shown);
      const detail = n.status === 'FAILED' && n.error ? `: ${n.error}` : n.status === 'COMPLETED' ? ` ${durationOf(n)}, ${credits(n.actualCredits)}` : '';
      line.note(`  ${n.nodeId} (${n.nodeType}) ${shown}${detail}`);
    }
  });
  const saved = outDir !== undefined && run.status === 'COMPLETED'
    ? await saveOutputs(client, fileUrlsIn(run.outputs), outDir)
    : [];
  output(json, { ...run, savedFiles: saved }, report(run, saved));
  if (run.status !== 'COMPLETED') process.exitCode = 1;
}

/**
 * `--value node.field=v` addresses a field of the Request node (its id, then the field's id or name);
 * `--value field=v` is the same for the workflow's one Request node.
 */
function valuesFor(workflow: Workflow, assignments: Assignment[], readFile: (path: string) => FileRef): Record<string, Record<string, unknown>> | undefined {
  if (assignments.length === 0) return undefined;
  const requestId = workflow.requestNodeId;
  if (!requestId) throw new UsageError(`workflow ${workflow.slug ?? workflow.id} has no Request node, so it takes no --value`);
  const local = assignments.map(({ key, raw }) => {
    const prefix = `${requestId}.`;
    if (key.startsWith(prefix)) return { key: key.slice(prefix.length), raw };
    if (key.includes('.')) throw new UsageError(`--value ${key}: "${key.split('.')[0]}" is not the Request node (${requestId})`);
    return { key, raw };
  });
  return { [requestId]: buildInput(local, kindsFromRequestFields(workflow.requestFields), readFile, '--value') };
}

function report(run: WorkflowRun, saved: string[]): string {
  const lines = [`${run.id} ${run.status} in ${durationOf(run) || '?'}, charged ${credits(run.actualCredits)}`];
  if (run.status !== 'COMPLETED') {
    lines.push(`error: ${run.error ?? 'no reason given'}`);
    return lines.join('\n');
  }
  if (saved.length) lines.push(...saved.map((p) => `saved ${p}`));
  else if (run.outputs && Object.keys(run.outputs).length) lines.push('', JSON.stringify(run.outputs, null, 2));
  return lines.join('\n');
}
