// `npm run bench:models` (or `npm run bench -- --models`): model quality and speed, offline, on inputs this
// repository draws and on sample pictures Debian ships (python3-skimage, python-matplotlib-data). Every
// quality figure stands beside a baseline measured in the same run; every speed figure is a cold (first
// call in this process, loading included) and a warm (second call) time on the model's smoke input.
// Writes bench/results/models.{json,md}.
//   npm run bench:models                       everything (about 10–20 minutes on 2 busy cores)
//   npm run bench:models -- --only ocr,speed   some sections: speed, ocr, speech, detection, faces, upscaling, background
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { loadCatalog } from '../src/catalog/load.js';
import { closeThreadPools } from '../src/engines/local/threads.js';
import { modelEngineKind } from '../src/catalog/engineKinds.js';
import { smokeInput, smokeMedia } from '../src/ops/modelSmoke.js';
import { ModelRunner } from './models/harness.js';
import { backgroundSection, detectionSection, faceSection, ocrSection, speechSection, upscaleSection, type QualityRow } from './models/sections.js';

const args = process.argv.slice(2).filter((a) => a !== '--models');
const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
// `--render`: rewrite models.md from models.json (after a change to the table layout), measuring nothing.
if (args.includes('--render')) {
  const saved = JSON.parse(fs.readFileSync(path.join(resultsDir, 'models.json'), 'utf8')) as Parameters<typeof renderMarkdown>[0];
  fs.writeFileSync(path.join(resultsDir, 'models.md'), renderMarkdown(saved));
  console.log('rewrote bench/results/models.md from models.json');
  process.exit(0);
}
const onlyAt = args.indexOf('--only');
const only = onlyAt >= 0 ? new Set(String(args[onlyAt + 1]).split(',')) : undefined;
const wanted = (s: string) => !only || only.has(s);

interface SpeedRow { nodeType: string; subModelId: string | null; engine: string; coldMs: number; warmMs: number; error?: string }

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-models-'));
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://unused/unused' });
const { catalog, engines } = await loadCatalog(config, { ...process.env, OPENAI_API_KEY: '', FAL_KEY: '', REPLICATE_API_TOKEN: '', COMFYUI_URL: '', ELEVENLABS_API_KEY: '', DEEPGRAM_API_KEY: '', XAI_API_KEY: '', GEMINI_API_KEY: '', WAVESPEED_API_KEY: '', HEDRA_API_KEY: '', MISTRAL_API_KEY: '' });
const runner = new ModelRunner(catalog, engines);
const log = (s: string) => console.log(s);
const startedAt = new Date().toISOString();
const load = os.loadavg();
const notes: string[] = [];

const speed: SpeedRow[] = [];
if (wanted('speed')) {
  console.log('== speed: cold and warm on each model\'s smoke input');
  const media = await smokeMedia();
  for (const model of catalog.models) {
    if (model.provider !== 'local' || model.deprecated) continue;
    const mode = model.modes[0]!;
    if (!catalog.availability(model, mode).available) continue;
    const input = smokeInput(model, mode, media);
    if (typeof input === 'string') continue;
    const sub = model.modes.length > 1 ? mode.subModelId : undefined;
    try {
      const cold = await runner.run(model.nodeType, sub, input);
      const warm = await runner.run(model.nodeType, sub, input);
      speed.push({ nodeType: model.nodeType, subModelId: sub ?? null, engine: modelEngineKind(model), coldMs: Math.round(cold.ms), warmMs: Math.round(warm.ms) });
      console.log(`   ${model.nodeType}: cold ${Math.round(cold.ms)} ms, warm ${Math.round(warm.ms)} ms`);
    } catch (err) {
      speed.push({ nodeType: model.nodeType, subModelId: sub ?? null, engine: modelEngineKind(model), coldMs: 0, warmMs: 0, error: (err as Error).message.split('\n')[0] });
      console.log(`   ${model.nodeType}: FAILED ${(err as Error).message.split('\n')[0]}`);
    }
  }
  notes.push('Speed: cold = the first call in this benchmark process (model loading included; the tfjs WASM runtime is loaded once for all tfjs models, by the first of them), warm = the second call on the same input. Inputs are the smoke inputs of `atelier doctor --models` (a 128×96 picture, a 1 s tone, a 1 s 128×96 video, a short sentence).');
}

// Background removal runs right after the speed pass: its onnxruntime build cannot be loaded a second time
// in one process once the thread that loaded it has idled out (see the notes of bench/results/models.md).
const sections: Array<[string, string, (m: ModelRunner, l: typeof log) => Promise<QualityRow[]>]> = [
  ['background', 'background removal against exact masks', backgroundSection],
  ['upscaling', 'upscaling against bicubic on held-out photos and text', upscaleSection],
  ['ocr', 'OCR character error rate', ocrSection],
  ['speech', 'speech-to-text word error rate over each voice', speechSection],
  ['detection', 'object detection and captions on labelled photos', detectionSection],
  ['faces', 'face attributes on labelled portraits', faceSection],
];
const quality: QualityRow[] = [];
for (const [id, title, fn] of sections) {
  if (!wanted(id)) continue;
  console.log(`== ${id}: ${title}`);
  const t0 = Date.now();
  try {
    quality.push(...(await fn(runner, log)));
  } catch (err) {
    console.error(`   section ${id} failed:`, err);
    notes.push(`section ${id} failed: ${(err as Error).message.split('\n')[0]}`);
  }
  console.log(`   (${Math.round((Date.now() - t0) / 1000)} s)`);
}
await closeThreadPools();

const report = {
  startedAt, finishedAt: new Date().toISOString(),
  command: `npm run bench:models${args.length ? ` -- ${args.join(' ')}` : ''}`,
  machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? '?', loadAvgAtStart: load, node: process.version },
  speed, quality, notes,
};

const md = renderMarkdown(report);

const dir = resultsDir;
fs.mkdirSync(dir, { recursive: true });
const name = only ? `models-${[...only].join('-')}` : 'models';
fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(report, null, 2) + '\n');
fs.writeFileSync(path.join(dir, `${name}.md`), md);
fs.rmSync(dataDir, { recursive: true, force: true });
console.log(`wrote bench/results/${name}.{json,md}`);
process.exit(0);

interface Report {
  startedAt: string;
  finishedAt: string;
  command: string;
  machine: { cpus: number; model: string; loadAvgAtStart: number[]; node: string };
  speed: SpeedRow[];
  quality: QualityRow[];
  notes: string[];
}

function f2(n: number, unit = ''): string {
  return Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : unit === '' ? n.toFixed(3) : (Math.round(n * 100) / 100).toString();
}
function sec(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`;
}
function verdict(r: QualityRow): string {
  if (r.baseline === undefined) return '–';
  const d = r.figure - r.baseline;
  if (Math.abs(d) < 1e-9) return 'equal';
  return (r.better === 'higher' ? d > 0 : d < 0) ? 'better' : '**worse**';
}
function renderMarkdownBody(report: Report): string {
  const load = report.machine.loadAvgAtStart;
  const { quality, speed, notes } = report;
  return [
  '# Atelier model benchmark',
  '',
  `Run ${report.startedAt} → ${report.finishedAt} with \`${report.command}\` on ${report.machine.cpus} × ${report.machine.model}, Node ${report.machine.node}; load average at start ${load.map((x) => x.toFixed(2)).join(' / ')}${load[0]! > report.machine.cpus ? ' (a loaded machine: other work was running, so times are slower than on an idle one)' : ''}.`,
  'Every quality figure stands beside a baseline measured in the same run; "better"/"worse" compares the two in the direction the metric favours.',
  '',
  ...(quality.length ? [
    '## Quality',
    '',
    '| section | model | metric | figure | baseline | vs baseline | n | note |',
    '|---|---|---|---|---|---|---|---|',
    ...quality.map((r) => `| ${r.section} | ${r.model} | ${r.metric} | ${f2(r.figure, r.unit)} ${r.unit} | ${r.baseline === undefined ? '–' : `${f2(r.baseline, r.unit)} ${r.unit} (${r.baselineLabel})`} | ${verdict(r)} | ${r.n} | ${r.note ?? ''} |`),
    '',
  ] : []),
  ...(speed.length ? [
    '## Speed (smoke input)',
    '',
    '| model | engine | cold | warm |',
    '|---|---|---|---|',
    ...speed.map((s) => `| ${s.subModelId ? `${s.nodeType} (${s.subModelId})` : s.nodeType} | ${s.engine} | ${s.error ? `failed: ${s.error}` : sec(s.coldMs)} | ${s.error ? '' : sec(s.warmMs)} |`),
    '',
  ] : []),
  ...(notes.length ? ['## Notes', '', ...notes.map((n) => `- ${n}`), ''] : []),
].join('\n');
}

function renderMarkdown(report: Report): string {
  return renderMarkdownBody(report);
}
