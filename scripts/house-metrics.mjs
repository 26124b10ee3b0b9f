#!/usr/bin/env node
// Prints the house's structural figures for a checkout (argument, default the current folder): import arrows
// that run back up the layer order (scripts/house/source.mjs LAYERS, docs/design.md), import circles, `.rows`
// reads typed as any, SQL lines outside queries files, and files whose SQL names the `runs` table.
//   node scripts/house-metrics.mjs [checkout] [--list]
// --list names the arrows, circles and files behind each figure.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const list = args.includes('--list');
const root = path.resolve(args.find((a) => !a.startsWith('--')) ?? '.');
// The rules are read from this script's own checkout, so an older checkout is measured with today's rules.
const { backUpArrows, importCircles, importGraph, isQueriesFile, readSources, sqlLiterals, touchesRuns, untypedRowReads } =
  await import(path.join(path.dirname(fileURLToPath(import.meta.url)), 'house/source.mjs'));

const files = readSources(root);
const graph = importGraph(files);
const back = backUpArrows(graph);
const circles = importCircles(graph);
let rowsTotal = 0;
let rowsUntyped = 0;
const untypedByFile = [];
let sqlOutside = 0;
const sqlOutsideByFile = [];
const runsFiles = [];
for (const [file, text] of files) {
  const r = untypedRowReads(text);
  rowsTotal += r.total;
  rowsUntyped += r.untyped;
  if (r.untyped) untypedByFile.push(`${file} ${r.untyped}`);
  const sql = sqlLiterals(text);
  if (!isQueriesFile(file)) {
    const lines = sql.reduce((sum, s) => sum + s.lines, 0);
    if (lines) { sqlOutside += lines; sqlOutsideByFile.push(`${file} ${lines}`); }
  }
  if (sql.some((s) => touchesRuns(s.text))) runsFiles.push(file);
}

console.log(`house: ${root} (${files.size} source files under src/)`);
console.log(`import arrows that run back up the layer order: ${back.length}`);
if (list) for (const a of back) console.log(`  ${a.from} -> ${a.to}`);
console.log(`import circles: ${circles.length}`);
if (list) for (const c of circles) console.log(`  ${c.join(' <-> ')}`);
console.log(`.rows reads typed as any: ${rowsUntyped} of ${rowsTotal}`);
if (list) for (const l of untypedByFile) console.log(`  ${l}`);
console.log(`SQL lines outside queries files: ${sqlOutside}`);
if (list) for (const l of sqlOutsideByFile) console.log(`  ${l}`);
console.log(`files whose SQL names the runs table: ${runsFiles.length}`);
if (list) for (const f of runsFiles) console.log(`  ${f}`);
