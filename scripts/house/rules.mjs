// The house rules (docs/design.md "Rules"), checked over source text: test/unit/architecture.test.ts runs
// them on src/, and on small fixtures to show that each rule bites.
import {
  backUpArrows, floorOf, importCircles, importGraph, isQueriesFile, moduleOf, sqlLiterals, writtenTables,
} from './source.mjs';

/** Rooms whose own SQL is the database's plumbing (pool, migrations runner, LISTEN/NOTIFY): no queries file needed. */
export const SQL_PLUMBING = ['db'];

/** table -> owning room, from the owner map ({ room: [tables] }); keys starting with `$` are comments. */
export function ownerOf(ownerMap) {
  const owner = new Map();
  for (const [room, tables] of Object.entries(ownerMap)) {
    if (room.startsWith('$')) continue;
    for (const t of tables) {
      if (owner.has(t)) throw new Error(`table ${t} has two owners: ${owner.get(t)} and ${room}`);
      owner.set(t, room);
    }
  }
  return owner;
}

/**
 * Every breach of the rules in a set of files (path -> text, paths as `src/...`), each a stable line
 * `<file>: <rule>` (no line numbers, so an unrelated edit does not change it). Sorted, without repeats.
 */
export function houseViolations(files, ownerMap) {
  const owner = ownerOf(ownerMap);
  const out = new Set();
  for (const [file, text] of files) {
    const sql = sqlLiterals(text);
    const room = moduleOf(file);
    for (const s of sql) {
      for (const table of writtenTables(s.text)) {
        const o = owner.get(table);
        if (o === undefined) out.add(`${file}: writes ${table}, a table with no owner`);
        else if (o !== room) out.add(`${file}: writes ${table}, owned by ${o}/`);
      }
    }
    if (sql.length > 0 && !isQueriesFile(file) && !SQL_PLUMBING.includes(room)) out.add(`${file}: SQL outside a queries file`);
  }
  const graph = importGraph(files);
  const execution = floorOf('execution');
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const toRoom = moduleOf(to);
      if (moduleOf(from) === 'execution' && (floorOf(toRoom) ?? -1) > execution) out.add(`${from}: execution imports a run kind (${to})`);
      if (toRoom === 'http' && !['http', 'app'].includes(moduleOf(from))) out.add(`${from}: imports http/ outside the composition root (${to})`);
    }
  }
  for (const { from, to } of backUpArrows(graph)) out.add(`${from}: import runs back up the layers (${to})`);
  for (const circle of importCircles(graph)) out.add(`${circle[0]}: import circle (${circle.join(' -> ')})`);
  return [...out].sort();
}
