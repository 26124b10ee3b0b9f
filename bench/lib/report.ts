import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** One measured figure, its same-run baseline and whether it meets the issue's goal. */
export interface Row {
  scenario: string;
  metric: string;
  figure: number;
  unit: string;
  baseline?: number;
  baselineLabel?: string;
  /** figure / baseline. */
  ratio?: number;
  goal?: string;
  met?: boolean;
  note?: string;
}

export interface Report {
  startedAt: string;
  finishedAt: string;
  command: string;
  machine: { cpus: number; model: string; loadAvgAtStart: number[]; node: string; postgres: string };
  rows: Row[];
  notes: string[];
}

export function row(r: Omit<Row, 'ratio'>): Row {
  const ratio = r.baseline && Number.isFinite(r.baseline) && r.baseline !== 0 ? Math.round((r.figure / r.baseline) * 1000) / 1000 : undefined;
  return { ...r, ratio };
}

function fmt(n: number | undefined): string {
  if (n === undefined || Number.isNaN(n)) return '–';
  return Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : String(Math.round(n * 100) / 100);
}

export function markdown(r: Report): string {
  const lines = [
    `# Atelier benchmark results`,
    '',
    `Run ${r.startedAt} → ${r.finishedAt} with \`${r.command}\` on ${r.machine.cpus} × ${r.machine.model}, Node ${r.machine.node}, ${r.machine.postgres}; load average at start ${r.machine.loadAvgAtStart.map((x) => x.toFixed(2)).join(' / ')}.`,
    'Every figure is paired with a baseline measured in the same run on the same machine; the ratio is figure ÷ baseline.',
    '',
    '| scenario | metric | figure | baseline | ratio | goal | met |',
    '|---|---|---|---|---|---|---|',
    ...r.rows.map((x) => `| ${x.scenario} | ${x.metric} | ${fmt(x.figure)} ${x.unit} | ${x.baseline === undefined ? '–' : `${fmt(x.baseline)} (${x.baselineLabel})`} | ${x.ratio ?? '–'} | ${x.goal ?? '–'} | ${x.met === undefined ? '–' : x.met ? 'yes' : '**no**'} |`),
    '',
    ...(r.rows.some((x) => x.note) ? ['## Row notes', '', ...r.rows.filter((x) => x.note).map((x) => `- ${x.scenario}, ${x.metric}: ${x.note!.replace(/\n/g, ' ')}`), ''] : []),
    ...(r.notes.length ? ['## Notes', '', ...r.notes.map((n) => `- ${n}`), ''] : []),
  ];
  return lines.join('\n');
}

/** Writes NAME.json/NAME.md (latest by default) and a dated copy of each into bench/results/. */
export function writeReport(dir: string, r: Report, name = 'latest'): string[] {
  fs.mkdirSync(dir, { recursive: true });
  const stamp = r.startedAt.replace(/[:]/g, '-').replace(/\.\d+Z$/, 'Z');
  const json = JSON.stringify(r, null, 2) + '\n';
  const md = markdown(r);
  const files = [
    [path.join(dir, `${name}.json`), json], [path.join(dir, `${name}.md`), md],
    [path.join(dir, `${stamp}.json`), json], [path.join(dir, `${stamp}.md`), md],
  ] as const;
  for (const [f, text] of files) fs.writeFileSync(f, text);
  return files.map(([f]) => f);
}

export function machine(postgres: string): Report['machine'] {
  return { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown', loadAvgAtStart: os.loadavg(), node: process.version, postgres };
}
