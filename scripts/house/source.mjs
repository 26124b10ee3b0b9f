// Reads the source tree as data for the house rules: which file imports which, where the SQL is, which
// tables it writes. Plain node, no TypeScript needed, so `node scripts/house-metrics.mjs` runs on any
// checkout; test/unit/architecture.test.ts turns the same readings into rules (docs/design.md).
import fs from 'node:fs';
import path from 'node:path';

/** Files of the service under `src/` that hold code (browser scripts under web/public are not modules of ours). */
export function listSourceFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (rel !== 'src/web/public' && rel !== 'src/db/migrations') walk(rel);
      } else if (/\.(ts|tsx|mts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(rel);
    }
  };
  walk('src');
  return out.sort();
}

export function readSources(root) {
  const files = new Map();
  for (const rel of listSourceFiles(root)) files.set(rel, fs.readFileSync(path.join(root, rel), 'utf8'));
  return files;
}

/**
 * Splits source text into its string literals (quoted and template) and the code between them, skipping
 * comments and regular-expression literals, so SQL is found only where it is a string and imports only in code.
 * A template's `${…}` parts are code; the literal's text has them replaced by `$x`.
 */
export function scan(text) {
  const strings = []; // { text, line } line: 1-based line where the literal starts
  let code = '';
  let i = 0;
  let line = 1;
  let lastSignificant = '';
  const n = text.length;
  const regexMayStart = () => lastSignificant === '' || /[(,=:[!&|?{};+\-*%<>~^]$/.test(lastSignificant) || /\b(return|typeof|case|in|of|yield|await)$/.test(code.slice(-8));
  function readTemplate() {
    // at the opening backtick
    const startLine = line;
    let lit = '';
    i++;
    while (i < n) {
      const c = text[i];
      if (c === '\\') { lit += text.slice(i, i + 2); if (text[i + 1] === '\n') line++; i += 2; continue; }
      if (c === '`') { i++; break; }
      if (c === '$' && text[i + 1] === '{') {
        i += 2;
        lit += '$x';
        let depth = 1;
        while (i < n && depth > 0) {
          const d = text[i];
          if (d === '`') { readTemplate(); continue; }
          if (d === "'" || d === '"') { readQuoted(); continue; }
          if (d === '{') depth++;
          else if (d === '}') depth--;
          if (d === '\n') line++;
          if (depth > 0) code += d;
          i++;
        }
        continue;
      }
      if (c === '\n') line++;
      lit += c;
      i++;
    }
    strings.push({ text: lit, line: startLine });
    code += '``';
    lastSignificant = '`';
  }
  function readQuoted() {
    const q = text[i];
    const startLine = line;
    let lit = '';
    i++;
    while (i < n && text[i] !== q && text[i] !== '\n') {
      if (text[i] === '\\') { lit += text.slice(i, i + 2); i += 2; continue; }
      lit += text[i++];
    }
    i++;
    strings.push({ text: lit, line: startLine });
    code += q + lit + q; // kept in code so import specifiers stay readable
    lastSignificant = q;
  }
  while (i < n) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') { while (i < n && text[i] !== '\n') i++; continue; }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      for (let k = i; k < stop; k++) if (text[k] === '\n') { line++; code += '\n'; }
      i = stop;
      continue;
    }
    if (c === '`') { readTemplate(); continue; }
    if (c === "'" || c === '"') { readQuoted(); continue; }
    if (c === '/' && regexMayStart()) {
      let inClass = false;
      i++;
      while (i < n && text[i] !== '\n') {
        const d = text[i];
        if (d === '\\') { i += 2; continue; }
        if (d === '[') inClass = true;
        else if (d === ']') inClass = false;
        else if (d === '/' && !inClass) break;
        i++;
      }
      i++;
      code += '/r/';
      lastSignificant = '/';
      continue;
    }
    if (c === '\n') line++;
    if (!/\s/.test(c)) lastSignificant = c;
    code += c;
    i++;
  }
  return { code, strings };
}

/** Relative module specifiers a file imports or re-exports (static, side-effect and literal dynamic imports). */
export function importSpecifiers(code) {
  const specs = [];
  const re = /(?:\bimport\s*(?:type\s+)?(?:[\w*{}\s,$]+\s+from\s*)?|\bexport\s+(?:type\s+)?[\w*{}\s,$]*\s+from\s*|\bimport\s*\(\s*)(['"])([^'"\n]+)\1/g;
  for (const m of code.matchAll(re)) if (m[2].startsWith('.')) specs.push(m[2]);
  return specs;
}

/** The file a relative specifier names (`./x.js` is `./x.ts` on disk), or undefined when it is not a source file. */
export function resolveImport(from, spec, known) {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  const stem = base.replace(/\.(js|mjs|ts|tsx|jsx)$/, '');
  for (const cand of [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${stem}.mjs`, `${stem}/index.ts`]) if (known.has(cand)) return cand;
  return undefined;
}

/** file -> files of src it imports. */
export function importGraph(files) {
  const graph = new Map();
  for (const [file, text] of files) {
    const targets = new Set();
    for (const spec of importSpecifiers(scan(text).code)) {
      const to = resolveImport(file, spec, files);
      if (to && to !== file) targets.add(to);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** The import circles: every strongly connected set of two or more files (Tarjan), each sorted. */
export function importCircles(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const circles = [];
  const visit = (v) => {
    idx.set(v, index); low.set(v, index); index++;
    stack.push(v); onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const set = [];
      let w;
      do { w = stack.pop(); onStack.delete(w); set.push(w); } while (w !== v);
      if (set.length > 1) circles.push(set.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return circles.sort((a, b) => a[0].localeCompare(b[0]));
}

/** The room a file belongs to: `src/keys/cache.ts` -> `keys`; a file at the top of src is its own room (`server.ts`). */
export function moduleOf(file) {
  return file.split('/')[1];
}

/**
 * The layer order, bottom first; a room may import rooms on its own floor or below. Arrows that run the
 * other way "run back up". Rooms on one floor do not depend on each other by design. `services.ts` is the
 * type of the service objects (built in app/) that the transports above it take.
 */
export const LAYERS = [
  ['contract', 'ids.ts', 'errors.ts', 'config.ts', 'logger.ts', 'logMasks.ts', 'canonicalJson.ts', 'net', 'pricing', 'tracing'],
  ['db', 'pagination.ts'],
  ['engines', 'errorReplies'],
  ['catalog', 'files', 'keys', 'accounts', 'ledger', 'billing', 'events', 'queue'],
  ['execution'],
  ['runs'],
  ['workflows'],
  ['ops'],
  ['services.ts'],
  ['mcp'],
  ['web', 'http'],
  ['app', 'server.ts', 'services.ts'],
  ['cli'],
];

export function floorOf(room) {
  const f = LAYERS.findIndex((floor) => floor.includes(room));
  return f < 0 ? undefined : f;
}

/** Import arrows from a room to a room on a higher floor: [{ from, to }] (files). */
export function backUpArrows(graph) {
  const out = [];
  for (const [from, targets] of graph) {
    const a = floorOf(moduleOf(from));
    for (const to of targets) {
      const b = floorOf(moduleOf(to));
      if (a !== undefined && b !== undefined && b > a) out.push({ from, to });
    }
  }
  return out;
}

const STATEMENT = /^\s*\(?\s*(SELECT|INSERT\s+INTO|UPDATE|DELETE\s+FROM|WITH\s+\w+\s+AS|LOCK\s+TABLE|CREATE|ALTER|DROP|TRUNCATE|NOTIFY|LISTEN|UNLISTEN|VALUES)\s+\S/;
const FRAGMENT = /\$\d+[\s\S]*\b(WHERE|AND|FROM|SET|VALUES|JOIN|RETURNING|ORDER BY)\b|\b(WHERE|AND|FROM|SET|VALUES|JOIN|RETURNING|ORDER BY)\b[\s\S]*\$\d+/;
const TRANSACTION = /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b[\s\w]*$/;

/**
 * Whether a string literal is SQL: it opens with a statement keyword (upper case, as all SQL of ours is
 * written), or it is a fragment with a `$n` parameter next to a clause keyword. Bare transaction control
 * (BEGIN, COMMIT, ROLLBACK, SAVEPOINT) is not counted: a service may own its transaction.
 */
export function isSql(literal) {
  if (TRANSACTION.test(literal)) return false;
  return STATEMENT.test(literal) || FRAGMENT.test(literal);
}

/** The SQL literals of a file: [{ text, line, lines }]. */
export function sqlLiterals(text) {
  return scan(text).strings.filter((s) => isSql(s.text)).map((s) => ({ ...s, lines: s.text.trim().split('\n').length }));
}

/**
 * Tables a piece of SQL writes (INSERT INTO, UPDATE … SET, DELETE FROM), lower case, schema kept. A schema
 * interpolated into the text (`${BOSS_SCHEMA}.job`, pg-boss's own tables) reads as `*` (`*.job`).
 */
export function writtenTables(sql) {
  const out = new Set();
  const name = '((?:\\$x|[A-Za-z_][\\w]*)(?:\\.[A-Za-z_][\\w]*)?)';
  for (const m of sql.matchAll(new RegExp(`\\bINSERT\\s+INTO\\s+${name}`, 'gi'))) out.add(m[1].toLowerCase());
  for (const m of sql.matchAll(new RegExp(`\\bDELETE\\s+FROM\\s+${name}`, 'gi'))) out.add(m[1].toLowerCase());
  for (const m of sql.matchAll(new RegExp(`\\bUPDATE\\s+${name}(?:\\s+(?:AS\\s+)?([A-Za-z_]\\w*))?\\s+SET\\b`, 'gi'))) {
    if (!/^(set)$/i.test(m[1])) out.add(m[1].toLowerCase());
  }
  return [...out].map((t) => t.replace(/^\$x\./, '*.')).filter((t) => t !== '$x').sort();
}

/** Whether a piece of SQL reads or writes the `runs` table. */
export function touchesRuns(sql) {
  return /\b(FROM|JOIN|INTO|UPDATE)\s+runs\b/i.test(sql);
}

/** A queries file: `queries.ts`, or any file in a `queries/` folder. */
export function isQueriesFile(file) {
  return /(^|\/)queries\.(ts|mts|mjs)$/.test(file) || /\/queries\//.test(file);
}

/**
 * `.rows` reads whose query call has no type parameter (so each row is `any`). Reads off `(await x.query(…)).rows`
 * look at that call; reads off a name look at the last `name = await ….query…` before them.
 */
export function untypedRowReads(text) {
  const { code } = scan(text);
  let untyped = 0;
  let total = 0;
  for (const m of code.matchAll(/([\w$]+|\))\s*\.rows\b/g)) {
    total++;
    const before = code.slice(0, m.index);
    let typed = false;
    if (m[1] === ')') {
      // walk back to the matching parenthesis of `(await db.query(...))`
      let depth = 0;
      let k = m.index;
      for (; k >= 0; k--) {
        if (code[k] === ')') depth++;
        else if (code[k] === '(') { depth--; if (depth === 0) break; }
      }
      typed = /\bquery\s*</.test(code.slice(Math.max(0, k - 60), m.index));
    } else {
      const assign = [...before.matchAll(new RegExp(`\\b${m[1].replace(/\$/g, '\\$')}\\s*(?::[^=]+)?=\\s*await\\s+[\\w.$()]*?\\bquery\\s*(<)?`, 'g'))].pop();
      typed = Boolean(assign?.[1]);
    }
    if (!typed) untyped++;
  }
  return { total, untyped };
}
