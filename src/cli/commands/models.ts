import type { CliContext } from '../context.js';
import { output, parseFlags, SERVER_FLAGS, UsageError } from '../args.js';
import { connect } from '../remote/connection.js';
import { credits } from '../remote/follow.js';
import type { ModelSearchResult } from '../../../packages/sdk/src/types-models.js';

const USAGE = `usage: atelier models search [QUERY] [--json]
       atelier models list [--json]
       atelier models schema MODEL_ID [--json]
       atelier models pricing MODEL_ID [--json]`;

/** Model discovery against the server at ATELIER_URL: the same answers as the REST endpoints, laid out for reading. */
export async function modelsCommand(_ctx: CliContext, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseFlags(rest, SERVER_FLAGS);
  const json = values.json === true;
  const width = process.stdout.columns ?? 100;
  switch (sub) {
    case 'search': {
      const result = await connect(values.url).models.search(positionals.join(' ') || undefined);
      return output(json, result, searchText(result, width));
    }
    case 'list': {
      if (positionals.length) throw new UsageError(USAGE);
      const models = await connect(values.url).models.list();
      return output(json, models, models.map((m) =>
        fit(`${m.nodeType.padEnd(28)} ${m.category.padEnd(16)} ${m.available ? '' : '(unavailable) '}${m.name}`, width)).join('\n'));
    }
    case 'schema': {
      if (positionals.length !== 1) throw new UsageError(USAGE);
      const s = await connect(values.url).models.schema(positionals[0]!);
      const fields = s.fields.map((f) => {
        const range = f.options ? ` one of ${f.options.join(', ')}` : '';
        const def = f.default === null || f.default === undefined ? '' : ` (default ${JSON.stringify(f.default)})`;
        return `  ${f.name.padEnd(18)} ${f.type.padEnd(9)} ${f.required ? 'required ' : ''}${range}${def}`.trimEnd();
      });
      return output(json, s, [`${s.modelId} — ${s.name} (${s.category})`, s.description, '', 'inputs:', ...fields,
        '', `outputs: ${s.outputs.map((o) => `${o.name} (${o.dataType})`).join(', ')}`].join('\n'));
    }
    case 'pricing': {
      if (positionals.length !== 1) throw new UsageError(USAGE);
      const p = await connect(values.url).models.pricing(positionals[0]!);
      const examples = p.examples.map((e) => `  ${credits(e.microcredits).padStart(24)}  for ${JSON.stringify(e.input)}`);
      return output(json, p, [`${p.modelId}: ${p.summary}`, ...(examples.length ? ['examples:', ...examples] : [])].join('\n'));
    }
    default:
      throw new UsageError(USAGE);
  }
}

/** Search results grouped by category as the API groups them, one model per line. */
export function searchText(r: ModelSearchResult, width: number): string {
  const lines: string[] = [];
  if (r.noMatch) lines.push(r.noMatch);
  for (const [category, entries] of Object.entries(r.modelCatalog ?? {})) {
    const role = r.categoryRoles?.[category];
    lines.push(`${category}${role ? ` (${role})` : ''}`);
    for (const e of entries) lines.push(fit(`  ${e.modelId.padEnd(30)} ${e.available ? '' : '(unavailable) '}${e.name} — ${e.description}`, width));
  }
  if (r.hint) lines.push('', r.hint);
  return lines.join('\n') || r.usage;
}

function fit(line: string, width: number): string {
  return line.length <= width ? line : line.slice(0, Math.max(20, width - 1)) + '…';
}
