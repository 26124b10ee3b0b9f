// Sums a .cpuprofile written by profileRoute.mts: top functions by self time, then by package or file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const dir = path.join(os.tmpdir(), 'atelier-prof');
const f = fs.readdirSync(dir).map((n) => `${dir}/${n}`).sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
const prof = JSON.parse(fs.readFileSync(f, 'utf8'));
const self = new Map(); const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const dt = new Map();
prof.samples.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
let total = 0;
for (const [id, t] of dt) { const n = byId.get(id); const cf = n.callFrame; const key = `${cf.functionName || '(anon)'} ${cf.url.replace(/.*node_modules\//, 'nm/').replace(process.cwd() + '/', '')}:${cf.lineNumber}`; self.set(key, (self.get(key) ?? 0) + t); total += t; }
const byFile = new Map();
for (const [k, t] of self) { const file = k.split(' ')[1]?.split(':')[0] ?? '?'; const pkg = file.startsWith('nm/') ? file.split('/').slice(0, file.startsWith('nm/@') ? 3 : 2).join('/') : file; byFile.set(pkg, (byFile.get(pkg) ?? 0) + t); }
console.log('total ms', Math.round(total / 1000));
console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, t]) => `${(100 * t / total).toFixed(1)}% ${k}`).join('\n'));
console.log('--- by package/file');
console.log([...byFile].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([k, t]) => `${(100 * t / total).toFixed(1)}% ${k}`).join('\n'));
